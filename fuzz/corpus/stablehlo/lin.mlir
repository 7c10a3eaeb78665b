module @lin {
  func.func public @main(%arg0: tensor<2x4xf32> {tessera.name = "x", tessera.role = "input"}, %arg1: tensor<3x4xf32> {tessera.name = "w", tessera.role = "weight"}) -> tensor<2x3xf32> {
    %0 = stablehlo.composite "tessera.linear" %arg0, %arg1 {decomposition = @tessera.linear.0} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
  func.func private @tessera.linear.0(%arg0: tensor<2x4xf32>, %arg1: tensor<3x4xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
