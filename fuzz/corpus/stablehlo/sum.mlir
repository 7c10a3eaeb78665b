module @sum {
  func.func public @main(%arg0: tensor<2x3xf32> {tessera.name = "x", tessera.role = "input"}) -> tensor<2xf32> {
    %0 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}
