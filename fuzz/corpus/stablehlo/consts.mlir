module @consts {
  func.func public @main() -> (tensor<f32>, tensor<2xf32>, tensor<2x2xi32>, tensor<f16>, tensor<i32>) {
    %0 = stablehlo.constant dense<0x3F800000> : tensor<f32>
    %1 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
    %2 = stablehlo.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
    %3 = stablehlo.constant dense<0x3C00> : tensor<f16>
    %4 = stablehlo.constant dense<-7> : tensor<i32> loc("layer.0")
    return %0, %1, %2, %3, %4 : tensor<f32>, tensor<2xf32>, tensor<2x2xi32>, tensor<f16>, tensor<i32>
  }
}
