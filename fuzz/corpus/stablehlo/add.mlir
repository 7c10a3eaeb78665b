module @add {
  func.func public @main(%arg0: tensor<2x3xf32> {tessera.name = "model.a", tessera.role = "weight"}, %arg1: tensor<2x3xf32> {tessera.name = "b", tessera.role = "input"}) -> tensor<2x3xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
