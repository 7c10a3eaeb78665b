module @composites {
  func.func public @main(%arg0: tensor<3x8xf32> {tessera.name = "x", tessera.role = "input"}, %arg1: tensor<8xbf16> {tessera.name = "w.bf16", tessera.role = "weight"}, %arg2: tensor<8xf32> {tessera.name = "w.f32", tessera.role = "weight"}, %arg3: tensor<8xf16> {tessera.name = "w.f16", tessera.role = "weight"}, %arg4: tensor<3x8xf32> {tessera.name = "bias", tessera.role = "input"}, %arg5: tensor<3x2x8xf32> {tessera.name = "xr", tessera.role = "input"}, %arg6: tensor<3x2xf32> {tessera.name = "cos", tessera.role = "input"}, %arg7: tensor<3x2xf32> {tessera.name = "sin", tessera.role = "input"}, %arg8: tensor<3x4xf32> {tessera.name = "cos4", tessera.role = "input"}, %arg9: tensor<3x4xf32> {tessera.name = "sin4", tessera.role = "input"}, %arg10: tensor<3x4x8xf32> {tessera.name = "q", tessera.role = "input"}, %arg11: tensor<5x2x8xf32> {tessera.name = "k", tessera.role = "state"}, %arg12: tensor<5x2x8xf32> {tessera.name = "v", tessera.role = "state"}, %arg13: tensor<3x5xf32> {tessera.name = "abias", tessera.role = "input"}, %arg14: tensor<i32> {tessera.name = "q_start", tessera.role = "input"}, %arg15: tensor<16x8xbf16> {tessera.name = "wg", tessera.role = "weight"}, %arg16: tensor<16x8xbf16> {tessera.name = "wu", tessera.role = "weight"}, %arg17: tensor<8x16xbf16> {tessera.name = "wd", tessera.role = "weight"}, %arg18: tensor<16x8xf32> {tessera.name = "wl", tessera.role = "weight"}, %arg19: tensor<16x8xf16> {tessera.name = "wh2", tessera.role = "weight"}, %arg20: tensor<16xf16> {tessera.name = "lb", tessera.role = "weight"}, %arg21: tensor<10x8xbf16> {tessera.name = "table", tessera.role = "weight"}, %arg22: tensor<3xi32> {tessera.name = "ids", tessera.role = "input"}) -> (tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x2x8xf32>, tensor<3x2x8xf32>, tensor<3x2x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x16xf32>, tensor<3x16xf32>, tensor<3x16xf32>, tensor<3x8xf32>) {
    %0 = stablehlo.composite "tessera.rms_norm" %arg0, %arg1 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<3x8xf32>, tensor<8xbf16>) -> tensor<3x8xf32> loc("norms")
    %1 = stablehlo.composite "tessera.rms_norm" %arg0, %arg2 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 1.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<3x8xf32>, tensor<8xf32>) -> tensor<3x8xf32> loc("norms")
    %2 = stablehlo.composite "tessera.rms_norm" %arg0, %arg1 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<3x8xf32>, tensor<8xbf16>) -> tensor<3x8xf32> loc("norms")
    %3 = stablehlo.composite "tessera.layer_norm" %arg0, %arg2, %arg3 {composite_attributes = {eps = 1.0e-05 : f64}, decomposition = @tessera.layer_norm.0} : (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf16>) -> tensor<3x8xf32> loc("norms")
    %4 = stablehlo.composite "tessera.softmax" %arg0 {decomposition = @tessera.softmax.0} : (tensor<3x8xf32>) -> tensor<3x8xf32> loc("norms")
    %5 = stablehlo.composite "tessera.softmax" %arg0, %arg4 {decomposition = @tessera.softmax.1} : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32> loc("norms")
    %6 = stablehlo.composite "tessera.rope" %arg5, %arg6, %arg7 {composite_attributes = {interleaved = false, rotary_dim = 4 : i64}, decomposition = @tessera.rope.0} : (tensor<3x2x8xf32>, tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2x8xf32> loc("rope")
    %7 = stablehlo.composite "tessera.rope" %arg5, %arg6, %arg7 {composite_attributes = {interleaved = true, rotary_dim = 4 : i64}, decomposition = @tessera.rope.1} : (tensor<3x2x8xf32>, tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2x8xf32> loc("rope")
    %8 = stablehlo.composite "tessera.rope" %arg5, %arg8, %arg9 {composite_attributes = {interleaved = false, rotary_dim = 8 : i64}, decomposition = @tessera.rope.2} : (tensor<3x2x8xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x2x8xf32> loc("rope")
    %9 = stablehlo.composite "tessera.attention" %arg10, %arg11, %arg12, %arg13, %arg14 {composite_attributes = {causal = true, has_bias = true, scale = 0.35355339059327373 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<3x4x8xf32>, tensor<5x2x8xf32>, tensor<5x2x8xf32>, tensor<3x5xf32>, tensor<i32>) -> tensor<3x4x8xf32> loc("attention")
    %10 = stablehlo.composite "tessera.attention" %arg10, %arg11, %arg12, %arg14 {composite_attributes = {causal = true, has_bias = false, scale = 0.125 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.1} : (tensor<3x4x8xf32>, tensor<5x2x8xf32>, tensor<5x2x8xf32>, tensor<i32>) -> tensor<3x4x8xf32> loc("attention")
    %11 = stablehlo.composite "tessera.attention" %arg10, %arg11, %arg12, %arg13 {composite_attributes = {causal = false, has_bias = true, scale = 0.125 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.2} : (tensor<3x4x8xf32>, tensor<5x2x8xf32>, tensor<5x2x8xf32>, tensor<3x5xf32>) -> tensor<3x4x8xf32> loc("attention")
    %12 = stablehlo.composite "tessera.attention" %arg10, %arg11, %arg12 {composite_attributes = {causal = false, has_bias = false, scale = 0.3 : f64, softcap = 5.0e+01 : f64}, decomposition = @tessera.attention.3} : (tensor<3x4x8xf32>, tensor<5x2x8xf32>, tensor<5x2x8xf32>) -> tensor<3x4x8xf32> loc("attention")
    %13 = stablehlo.composite "tessera.gated_mlp" %arg0, %arg15, %arg16, %arg17 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<3x8xf32>, tensor<16x8xbf16>, tensor<16x8xbf16>, tensor<8x16xbf16>) -> tensor<3x8xf32> loc("mlp")
    %14 = stablehlo.composite "tessera.gated_mlp" %arg0, %arg15, %arg16, %arg17 {composite_attributes = {activation = "gelu"}, decomposition = @tessera.gated_mlp.1} : (tensor<3x8xf32>, tensor<16x8xbf16>, tensor<16x8xbf16>, tensor<8x16xbf16>) -> tensor<3x8xf32> loc("mlp")
    %15 = stablehlo.composite "tessera.gated_mlp" %arg0, %arg15, %arg16, %arg17 {composite_attributes = {activation = "gelu_tanh"}, decomposition = @tessera.gated_mlp.2} : (tensor<3x8xf32>, tensor<16x8xbf16>, tensor<16x8xbf16>, tensor<8x16xbf16>) -> tensor<3x8xf32> loc("mlp")
    %16 = stablehlo.composite "tessera.gated_mlp" %arg0, %arg15, %arg16, %arg17 {composite_attributes = {activation = "quick_gelu"}, decomposition = @tessera.gated_mlp.3} : (tensor<3x8xf32>, tensor<16x8xbf16>, tensor<16x8xbf16>, tensor<8x16xbf16>) -> tensor<3x8xf32> loc("mlp")
    %17 = stablehlo.composite "tessera.linear" %arg0, %arg15 {decomposition = @tessera.linear.0} : (tensor<3x8xf32>, tensor<16x8xbf16>) -> tensor<3x16xf32> loc("mlp")
    %18 = stablehlo.composite "tessera.linear" %arg0, %arg18, %arg20 {decomposition = @tessera.linear.1} : (tensor<3x8xf32>, tensor<16x8xf32>, tensor<16xf16>) -> tensor<3x16xf32> loc("mlp")
    %19 = stablehlo.composite "tessera.linear" %arg0, %arg19, %arg20 {decomposition = @tessera.linear.2} : (tensor<3x8xf32>, tensor<16x8xf16>, tensor<16xf16>) -> tensor<3x16xf32> loc("mlp")
    %20 = stablehlo.composite "tessera.embedding" %arg21, %arg22 {decomposition = @tessera.embedding.0} : (tensor<10x8xbf16>, tensor<3xi32>) -> tensor<3x8xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20 : tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x2x8xf32>, tensor<3x2x8xf32>, tensor<3x2x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x16xf32>, tensor<3x16xf32>, tensor<3x16xf32>, tensor<3x8xf32>
  }
  func.func private @tessera.rms_norm.0(%arg0: tensor<3x8xf32>, %arg1: tensor<8xbf16>) -> tensor<3x8xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<3x8xf32>
    %1 = stablehlo.constant dense<0x41000000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %3 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %4 = "stablehlo.reduce"(%0, %3) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<3x8xf32>, tensor<f32>) -> tensor<3xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<3xf32>) -> tensor<3x8xf32>
    %7 = stablehlo.divide %6, %2 : tensor<3x8xf32>
    %8 = stablehlo.constant dense<0x358637BD> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %10 = stablehlo.add %7, %9 : tensor<3x8xf32>
    %11 = stablehlo.rsqrt %10 : tensor<3x8xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<3x8xf32>
    %13 = stablehlo.convert %arg1 : (tensor<8xbf16>) -> tensor<8xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [1] : (tensor<8xf32>) -> tensor<3x8xf32>
    %15 = stablehlo.multiply %14, %12 : tensor<3x8xf32>
    return %15 : tensor<3x8xf32>
  }
  func.func private @tessera.rms_norm.1(%arg0: tensor<3x8xf32>, %arg1: tensor<8xf32>) -> tensor<3x8xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<3x8xf32>
    %1 = stablehlo.constant dense<0x41000000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %3 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %4 = "stablehlo.reduce"(%0, %3) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<3x8xf32>, tensor<f32>) -> tensor<3xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<3xf32>) -> tensor<3x8xf32>
    %7 = stablehlo.divide %6, %2 : tensor<3x8xf32>
    %8 = stablehlo.constant dense<0x3727C5AC> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %10 = stablehlo.add %7, %9 : tensor<3x8xf32>
    %11 = stablehlo.rsqrt %10 : tensor<3x8xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<3x8xf32>
    %13 = stablehlo.constant dense<0x3F800000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %15 = stablehlo.add %arg1, %14 : tensor<8xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [1] : (tensor<8xf32>) -> tensor<3x8xf32>
    %17 = stablehlo.multiply %16, %12 : tensor<3x8xf32>
    return %17 : tensor<3x8xf32>
  }
  func.func private @tessera.layer_norm.0(%arg0: tensor<3x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf16>) -> tensor<3x8xf32> {
    %0 = stablehlo.constant dense<0x41000000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %2 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %3 = "stablehlo.reduce"(%arg0, %2) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %4 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %4 : tensor<f32>
    }) : (tensor<3x8xf32>, tensor<f32>) -> tensor<3xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<3xf32>) -> tensor<3x8xf32>
    %6 = stablehlo.divide %5, %1 : tensor<3x8xf32>
    %7 = stablehlo.subtract %arg0, %6 : tensor<3x8xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<3x8xf32>
    %9 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %10 = "stablehlo.reduce"(%8, %9) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %11 = stablehlo.add %arg5, %arg6 : tensor<f32>
      stablehlo.return %11 : tensor<f32>
    }) : (tensor<3x8xf32>, tensor<f32>) -> tensor<3xf32>
    %12 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<3xf32>) -> tensor<3x8xf32>
    %13 = stablehlo.divide %12, %1 : tensor<3x8xf32>
    %14 = stablehlo.constant dense<0x3727C5AC> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %16 = stablehlo.add %13, %15 : tensor<3x8xf32>
    %17 = stablehlo.rsqrt %16 : tensor<3x8xf32>
    %18 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<3x8xf32>
    %19 = stablehlo.multiply %7, %17 : tensor<3x8xf32>
    %20 = stablehlo.multiply %19, %18 : tensor<3x8xf32>
    %21 = stablehlo.convert %arg2 : (tensor<8xf16>) -> tensor<8xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [1] : (tensor<8xf32>) -> tensor<3x8xf32>
    %23 = stablehlo.add %20, %22 : tensor<3x8xf32>
    return %23 : tensor<3x8xf32>
  }
  func.func private @tessera.softmax.0(%arg0: tensor<3x8xf32>) -> tensor<3x8xf32> {
    %0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<3x8xf32>, tensor<f32>) -> tensor<3xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<3xf32>) -> tensor<3x8xf32>
    %4 = stablehlo.subtract %arg0, %3 : tensor<3x8xf32>
    %5 = stablehlo.exponential %4 : tensor<3x8xf32>
    %6 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %7 = "stablehlo.reduce"(%5, %6) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %8 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %8 : tensor<f32>
    }) : (tensor<3x8xf32>, tensor<f32>) -> tensor<3xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<3xf32>) -> tensor<3x8xf32>
    %10 = stablehlo.divide %5, %9 : tensor<3x8xf32>
    return %10 : tensor<3x8xf32>
  }
  func.func private @tessera.softmax.1(%arg0: tensor<3x8xf32>, %arg1: tensor<3x8xf32>) -> tensor<3x8xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<3x8xf32>
    %1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = "stablehlo.reduce"(%0, %1) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %3 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
    }) : (tensor<3x8xf32>, tensor<f32>) -> tensor<3xf32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<3xf32>) -> tensor<3x8xf32>
    %5 = stablehlo.subtract %0, %4 : tensor<3x8xf32>
    %6 = stablehlo.exponential %5 : tensor<3x8xf32>
    %7 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %8 = "stablehlo.reduce"(%6, %7) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %9 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %9 : tensor<f32>
    }) : (tensor<3x8xf32>, tensor<f32>) -> tensor<3xf32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<3xf32>) -> tensor<3x8xf32>
    %11 = stablehlo.divide %6, %10 : tensor<3x8xf32>
    return %11 : tensor<3x8xf32>
  }
  func.func private @tessera.rope.0(%arg0: tensor<3x2x8xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<3x2xf32>) -> tensor<3x2x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<3x2xf32>) -> tensor<3x2x2xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0, 2] : (tensor<3x2xf32>) -> tensor<3x2x2xf32>
    %2 = stablehlo.slice %arg0 [0:3, 0:2, 0:2] : (tensor<3x2x8xf32>) -> tensor<3x2x2xf32>
    %3 = stablehlo.slice %arg0 [0:3, 0:2, 2:4] : (tensor<3x2x8xf32>) -> tensor<3x2x2xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<3x2x2xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<3x2x2xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<3x2x2xf32>
    %7 = stablehlo.multiply %2, %1 : tensor<3x2x2xf32>
    %8 = stablehlo.multiply %3, %0 : tensor<3x2x2xf32>
    %9 = stablehlo.add %8, %7 : tensor<3x2x2xf32>
    %10 = stablehlo.concatenate %6, %9, dim = 2 : (tensor<3x2x2xf32>, tensor<3x2x2xf32>) -> tensor<3x2x4xf32>
    %11 = stablehlo.slice %arg0 [0:3, 0:2, 4:8] : (tensor<3x2x8xf32>) -> tensor<3x2x4xf32>
    %12 = stablehlo.concatenate %10, %11, dim = 2 : (tensor<3x2x4xf32>, tensor<3x2x4xf32>) -> tensor<3x2x8xf32>
    return %12 : tensor<3x2x8xf32>
  }
  func.func private @tessera.rope.1(%arg0: tensor<3x2x8xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<3x2xf32>) -> tensor<3x2x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<3x2xf32>) -> tensor<3x2x2xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0, 2] : (tensor<3x2xf32>) -> tensor<3x2x2xf32>
    %2 = stablehlo.slice %arg0 [0:3, 0:2, 0:4:2] : (tensor<3x2x8xf32>) -> tensor<3x2x2xf32>
    %3 = stablehlo.slice %arg0 [0:3, 0:2, 1:4:2] : (tensor<3x2x8xf32>) -> tensor<3x2x2xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<3x2x2xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<3x2x2xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<3x2x2xf32>
    %7 = stablehlo.multiply %2, %1 : tensor<3x2x2xf32>
    %8 = stablehlo.multiply %3, %0 : tensor<3x2x2xf32>
    %9 = stablehlo.add %8, %7 : tensor<3x2x2xf32>
    %10 = stablehlo.reshape %6 : (tensor<3x2x2xf32>) -> tensor<3x2x2x1xf32>
    %11 = stablehlo.reshape %9 : (tensor<3x2x2xf32>) -> tensor<3x2x2x1xf32>
    %12 = stablehlo.concatenate %10, %11, dim = 3 : (tensor<3x2x2x1xf32>, tensor<3x2x2x1xf32>) -> tensor<3x2x2x2xf32>
    %13 = stablehlo.reshape %12 : (tensor<3x2x2x2xf32>) -> tensor<3x2x4xf32>
    %14 = stablehlo.slice %arg0 [0:3, 0:2, 4:8] : (tensor<3x2x8xf32>) -> tensor<3x2x4xf32>
    %15 = stablehlo.concatenate %13, %14, dim = 2 : (tensor<3x2x4xf32>, tensor<3x2x4xf32>) -> tensor<3x2x8xf32>
    return %15 : tensor<3x2x8xf32>
  }
  func.func private @tessera.rope.2(%arg0: tensor<3x2x8xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<3x4xf32>) -> tensor<3x2x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<3x4xf32>) -> tensor<3x2x4xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0, 2] : (tensor<3x4xf32>) -> tensor<3x2x4xf32>
    %2 = stablehlo.slice %arg0 [0:3, 0:2, 0:4] : (tensor<3x2x8xf32>) -> tensor<3x2x4xf32>
    %3 = stablehlo.slice %arg0 [0:3, 0:2, 4:8] : (tensor<3x2x8xf32>) -> tensor<3x2x4xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<3x2x4xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<3x2x4xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<3x2x4xf32>
    %7 = stablehlo.multiply %2, %1 : tensor<3x2x4xf32>
    %8 = stablehlo.multiply %3, %0 : tensor<3x2x4xf32>
    %9 = stablehlo.add %8, %7 : tensor<3x2x4xf32>
    %10 = stablehlo.concatenate %6, %9, dim = 2 : (tensor<3x2x4xf32>, tensor<3x2x4xf32>) -> tensor<3x2x8xf32>
    return %10 : tensor<3x2x8xf32>
  }
  func.func private @tessera.attention.0(%arg0: tensor<3x4x8xf32>, %arg1: tensor<5x2x8xf32>, %arg2: tensor<5x2x8xf32>, %arg3: tensor<3x5xf32>, %arg4: tensor<i32>) -> tensor<3x4x8xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<3x4x8xf32>) -> tensor<3x2x2x8xf32>
    %1 = stablehlo.dot_general %0, %arg1, batching_dims = [1] x [1], contracting_dims = [3] x [2] : (tensor<3x2x2x8xf32>, tensor<5x2x8xf32>) -> tensor<2x3x2x5xf32>
    %2 = stablehlo.constant dense<0x3EB504F3> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<2x3x2x5xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<2x3x2x5xf32>
    %5 = stablehlo.iota dim = 0 : tensor<3x5xi32>
    %6 = stablehlo.iota dim = 1 : tensor<3x5xi32>
    %7 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<i32>) -> tensor<3x5xi32>
    %8 = stablehlo.add %5, %7 : tensor<3x5xi32>
    %9 = stablehlo.compare  LE, %6, %8,  SIGNED : (tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [1, 3] : (tensor<3x5xi1>) -> tensor<2x3x2x5xi1>
    %11 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<2x3x2x5xf32>
    %13 = stablehlo.select %10, %4, %12 : tensor<2x3x2x5xi1>, tensor<2x3x2x5xf32>
    %14 = stablehlo.broadcast_in_dim %arg3, dims = [1, 3] : (tensor<3x5xf32>) -> tensor<2x3x2x5xf32>
    %15 = stablehlo.add %13, %14 : tensor<2x3x2x5xf32>
    %16 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %17 = "stablehlo.reduce"(%15, %16) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %18 = stablehlo.maximum %arg5, %arg6 : tensor<f32>
      stablehlo.return %18 : tensor<f32>
    }) : (tensor<2x3x2x5xf32>, tensor<f32>) -> tensor<2x3x2xf32>
    %19 = stablehlo.broadcast_in_dim %17, dims = [0, 1, 2] : (tensor<2x3x2xf32>) -> tensor<2x3x2x5xf32>
    %20 = stablehlo.subtract %15, %19 : tensor<2x3x2x5xf32>
    %21 = stablehlo.exponential %20 : tensor<2x3x2x5xf32>
    %22 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %23 = "stablehlo.reduce"(%21, %22) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %24 = stablehlo.add %arg7, %arg8 : tensor<f32>
      stablehlo.return %24 : tensor<f32>
    }) : (tensor<2x3x2x5xf32>, tensor<f32>) -> tensor<2x3x2xf32>
    %25 = stablehlo.broadcast_in_dim %23, dims = [0, 1, 2] : (tensor<2x3x2xf32>) -> tensor<2x3x2x5xf32>
    %26 = stablehlo.divide %21, %25 : tensor<2x3x2x5xf32>
    %27 = stablehlo.dot_general %26, %arg2, batching_dims = [0] x [1], contracting_dims = [3] x [0] : (tensor<2x3x2x5xf32>, tensor<5x2x8xf32>) -> tensor<2x3x2x8xf32>
    %28 = stablehlo.transpose %27, dims = [1, 0, 2, 3] : (tensor<2x3x2x8xf32>) -> tensor<3x2x2x8xf32>
    %29 = stablehlo.reshape %28 : (tensor<3x2x2x8xf32>) -> tensor<3x4x8xf32>
    return %29 : tensor<3x4x8xf32>
  }
  func.func private @tessera.attention.1(%arg0: tensor<3x4x8xf32>, %arg1: tensor<5x2x8xf32>, %arg2: tensor<5x2x8xf32>, %arg3: tensor<i32>) -> tensor<3x4x8xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<3x4x8xf32>) -> tensor<3x2x2x8xf32>
    %1 = stablehlo.dot_general %0, %arg1, batching_dims = [1] x [1], contracting_dims = [3] x [2] : (tensor<3x2x2x8xf32>, tensor<5x2x8xf32>) -> tensor<2x3x2x5xf32>
    %2 = stablehlo.constant dense<0x3E000000> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<2x3x2x5xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<2x3x2x5xf32>
    %5 = stablehlo.iota dim = 0 : tensor<3x5xi32>
    %6 = stablehlo.iota dim = 1 : tensor<3x5xi32>
    %7 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<i32>) -> tensor<3x5xi32>
    %8 = stablehlo.add %5, %7 : tensor<3x5xi32>
    %9 = stablehlo.compare  LE, %6, %8,  SIGNED : (tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [1, 3] : (tensor<3x5xi1>) -> tensor<2x3x2x5xi1>
    %11 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<2x3x2x5xf32>
    %13 = stablehlo.select %10, %4, %12 : tensor<2x3x2x5xi1>, tensor<2x3x2x5xf32>
    %14 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %15 = "stablehlo.reduce"(%13, %14) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %16 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %16 : tensor<f32>
    }) : (tensor<2x3x2x5xf32>, tensor<f32>) -> tensor<2x3x2xf32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<2x3x2xf32>) -> tensor<2x3x2x5xf32>
    %18 = stablehlo.subtract %13, %17 : tensor<2x3x2x5xf32>
    %19 = stablehlo.exponential %18 : tensor<2x3x2x5xf32>
    %20 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %21 = "stablehlo.reduce"(%19, %20) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %22 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %22 : tensor<f32>
    }) : (tensor<2x3x2x5xf32>, tensor<f32>) -> tensor<2x3x2xf32>
    %23 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2] : (tensor<2x3x2xf32>) -> tensor<2x3x2x5xf32>
    %24 = stablehlo.divide %19, %23 : tensor<2x3x2x5xf32>
    %25 = stablehlo.dot_general %24, %arg2, batching_dims = [0] x [1], contracting_dims = [3] x [0] : (tensor<2x3x2x5xf32>, tensor<5x2x8xf32>) -> tensor<2x3x2x8xf32>
    %26 = stablehlo.transpose %25, dims = [1, 0, 2, 3] : (tensor<2x3x2x8xf32>) -> tensor<3x2x2x8xf32>
    %27 = stablehlo.reshape %26 : (tensor<3x2x2x8xf32>) -> tensor<3x4x8xf32>
    return %27 : tensor<3x4x8xf32>
  }
  func.func private @tessera.attention.2(%arg0: tensor<3x4x8xf32>, %arg1: tensor<5x2x8xf32>, %arg2: tensor<5x2x8xf32>, %arg3: tensor<3x5xf32>) -> tensor<3x4x8xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<3x4x8xf32>) -> tensor<3x2x2x8xf32>
    %1 = stablehlo.dot_general %0, %arg1, batching_dims = [1] x [1], contracting_dims = [3] x [2] : (tensor<3x2x2x8xf32>, tensor<5x2x8xf32>) -> tensor<2x3x2x5xf32>
    %2 = stablehlo.constant dense<0x3E000000> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<2x3x2x5xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<2x3x2x5xf32>
    %5 = stablehlo.broadcast_in_dim %arg3, dims = [1, 3] : (tensor<3x5xf32>) -> tensor<2x3x2x5xf32>
    %6 = stablehlo.add %4, %5 : tensor<2x3x2x5xf32>
    %7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %8 = "stablehlo.reduce"(%6, %7) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %9 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %9 : tensor<f32>
    }) : (tensor<2x3x2x5xf32>, tensor<f32>) -> tensor<2x3x2xf32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<2x3x2xf32>) -> tensor<2x3x2x5xf32>
    %11 = stablehlo.subtract %6, %10 : tensor<2x3x2x5xf32>
    %12 = stablehlo.exponential %11 : tensor<2x3x2x5xf32>
    %13 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %14 = "stablehlo.reduce"(%12, %13) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %15 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %15 : tensor<f32>
    }) : (tensor<2x3x2x5xf32>, tensor<f32>) -> tensor<2x3x2xf32>
    %16 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2] : (tensor<2x3x2xf32>) -> tensor<2x3x2x5xf32>
    %17 = stablehlo.divide %12, %16 : tensor<2x3x2x5xf32>
    %18 = stablehlo.dot_general %17, %arg2, batching_dims = [0] x [1], contracting_dims = [3] x [0] : (tensor<2x3x2x5xf32>, tensor<5x2x8xf32>) -> tensor<2x3x2x8xf32>
    %19 = stablehlo.transpose %18, dims = [1, 0, 2, 3] : (tensor<2x3x2x8xf32>) -> tensor<3x2x2x8xf32>
    %20 = stablehlo.reshape %19 : (tensor<3x2x2x8xf32>) -> tensor<3x4x8xf32>
    return %20 : tensor<3x4x8xf32>
  }
  func.func private @tessera.attention.3(%arg0: tensor<3x4x8xf32>, %arg1: tensor<5x2x8xf32>, %arg2: tensor<5x2x8xf32>) -> tensor<3x4x8xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<3x4x8xf32>) -> tensor<3x2x2x8xf32>
    %1 = stablehlo.dot_general %0, %arg1, batching_dims = [1] x [1], contracting_dims = [3] x [2] : (tensor<3x2x2x8xf32>, tensor<5x2x8xf32>) -> tensor<2x3x2x5xf32>
    %2 = stablehlo.constant dense<0x3E99999A> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<2x3x2x5xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<2x3x2x5xf32>
    %5 = stablehlo.constant dense<0x42480000> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<2x3x2x5xf32>
    %7 = stablehlo.divide %4, %6 : tensor<2x3x2x5xf32>
    %8 = stablehlo.tanh %7 : tensor<2x3x2x5xf32>
    %9 = stablehlo.multiply %8, %6 : tensor<2x3x2x5xf32>
    %10 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %11 = "stablehlo.reduce"(%9, %10) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %12 = stablehlo.maximum %arg3, %arg4 : tensor<f32>
      stablehlo.return %12 : tensor<f32>
    }) : (tensor<2x3x2x5xf32>, tensor<f32>) -> tensor<2x3x2xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<2x3x2xf32>) -> tensor<2x3x2x5xf32>
    %14 = stablehlo.subtract %9, %13 : tensor<2x3x2x5xf32>
    %15 = stablehlo.exponential %14 : tensor<2x3x2x5xf32>
    %16 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %17 = "stablehlo.reduce"(%15, %16) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %18 = stablehlo.add %arg5, %arg6 : tensor<f32>
      stablehlo.return %18 : tensor<f32>
    }) : (tensor<2x3x2x5xf32>, tensor<f32>) -> tensor<2x3x2xf32>
    %19 = stablehlo.broadcast_in_dim %17, dims = [0, 1, 2] : (tensor<2x3x2xf32>) -> tensor<2x3x2x5xf32>
    %20 = stablehlo.divide %15, %19 : tensor<2x3x2x5xf32>
    %21 = stablehlo.dot_general %20, %arg2, batching_dims = [0] x [1], contracting_dims = [3] x [0] : (tensor<2x3x2x5xf32>, tensor<5x2x8xf32>) -> tensor<2x3x2x8xf32>
    %22 = stablehlo.transpose %21, dims = [1, 0, 2, 3] : (tensor<2x3x2x8xf32>) -> tensor<3x2x2x8xf32>
    %23 = stablehlo.reshape %22 : (tensor<3x2x2x8xf32>) -> tensor<3x4x8xf32>
    return %23 : tensor<3x4x8xf32>
  }
  func.func private @tessera.gated_mlp.0(%arg0: tensor<3x8xf32>, %arg1: tensor<16x8xbf16>, %arg2: tensor<16x8xbf16>, %arg3: tensor<8x16xbf16>) -> tensor<3x8xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<16x8xbf16>) -> tensor<16x8xf32>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [1] : (tensor<3x8xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
    %2 = stablehlo.logistic %1 : tensor<3x16xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<3x16xf32>
    %4 = stablehlo.convert %arg2 : (tensor<16x8xbf16>) -> tensor<16x8xf32>
    %5 = stablehlo.dot_general %arg0, %4, contracting_dims = [1] x [1] : (tensor<3x8xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
    %6 = stablehlo.multiply %3, %5 : tensor<3x16xf32>
    %7 = stablehlo.convert %arg3 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %8 = stablehlo.dot_general %6, %7, contracting_dims = [1] x [1] : (tensor<3x16xf32>, tensor<8x16xf32>) -> tensor<3x8xf32>
    return %8 : tensor<3x8xf32>
  }
  func.func private @tessera.gated_mlp.1(%arg0: tensor<3x8xf32>, %arg1: tensor<16x8xbf16>, %arg2: tensor<16x8xbf16>, %arg3: tensor<8x16xbf16>) -> tensor<3x8xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<16x8xbf16>) -> tensor<16x8xf32>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [1] : (tensor<3x8xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
    %2 = stablehlo.constant dense<0x3F3504F3> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<3x16xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<3x16xf32>
    %5 = chlo.erf %4 : tensor<3x16xf32> -> tensor<3x16xf32>
    %6 = stablehlo.constant dense<0x3F800000> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f32>) -> tensor<3x16xf32>
    %8 = stablehlo.add %5, %7 : tensor<3x16xf32>
    %9 = stablehlo.constant dense<0x3F000000> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<f32>) -> tensor<3x16xf32>
    %11 = stablehlo.multiply %1, %10 : tensor<3x16xf32>
    %12 = stablehlo.multiply %11, %8 : tensor<3x16xf32>
    %13 = stablehlo.convert %arg2 : (tensor<16x8xbf16>) -> tensor<16x8xf32>
    %14 = stablehlo.dot_general %arg0, %13, contracting_dims = [1] x [1] : (tensor<3x8xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
    %15 = stablehlo.multiply %12, %14 : tensor<3x16xf32>
    %16 = stablehlo.convert %arg3 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %17 = stablehlo.dot_general %15, %16, contracting_dims = [1] x [1] : (tensor<3x16xf32>, tensor<8x16xf32>) -> tensor<3x8xf32>
    return %17 : tensor<3x8xf32>
  }
  func.func private @tessera.gated_mlp.2(%arg0: tensor<3x8xf32>, %arg1: tensor<16x8xbf16>, %arg2: tensor<16x8xbf16>, %arg3: tensor<8x16xbf16>) -> tensor<3x8xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<16x8xbf16>) -> tensor<16x8xf32>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [1] : (tensor<3x8xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
    %2 = stablehlo.multiply %1, %1 : tensor<3x16xf32>
    %3 = stablehlo.multiply %2, %1 : tensor<3x16xf32>
    %4 = stablehlo.constant dense<0x3D372713> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f32>) -> tensor<3x16xf32>
    %6 = stablehlo.multiply %3, %5 : tensor<3x16xf32>
    %7 = stablehlo.add %1, %6 : tensor<3x16xf32>
    %8 = stablehlo.constant dense<0x3F4C422A> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<3x16xf32>
    %10 = stablehlo.multiply %7, %9 : tensor<3x16xf32>
    %11 = stablehlo.tanh %10 : tensor<3x16xf32>
    %12 = stablehlo.constant dense<0x3F800000> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<f32>) -> tensor<3x16xf32>
    %14 = stablehlo.add %11, %13 : tensor<3x16xf32>
    %15 = stablehlo.constant dense<0x3F000000> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<3x16xf32>
    %17 = stablehlo.multiply %1, %16 : tensor<3x16xf32>
    %18 = stablehlo.multiply %17, %14 : tensor<3x16xf32>
    %19 = stablehlo.convert %arg2 : (tensor<16x8xbf16>) -> tensor<16x8xf32>
    %20 = stablehlo.dot_general %arg0, %19, contracting_dims = [1] x [1] : (tensor<3x8xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
    %21 = stablehlo.multiply %18, %20 : tensor<3x16xf32>
    %22 = stablehlo.convert %arg3 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %23 = stablehlo.dot_general %21, %22, contracting_dims = [1] x [1] : (tensor<3x16xf32>, tensor<8x16xf32>) -> tensor<3x8xf32>
    return %23 : tensor<3x8xf32>
  }
  func.func private @tessera.gated_mlp.3(%arg0: tensor<3x8xf32>, %arg1: tensor<16x8xbf16>, %arg2: tensor<16x8xbf16>, %arg3: tensor<8x16xbf16>) -> tensor<3x8xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<16x8xbf16>) -> tensor<16x8xf32>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [1] : (tensor<3x8xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
    %2 = stablehlo.constant dense<0x3FD9DB23> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<3x16xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<3x16xf32>
    %5 = stablehlo.logistic %4 : tensor<3x16xf32>
    %6 = stablehlo.multiply %1, %5 : tensor<3x16xf32>
    %7 = stablehlo.convert %arg2 : (tensor<16x8xbf16>) -> tensor<16x8xf32>
    %8 = stablehlo.dot_general %arg0, %7, contracting_dims = [1] x [1] : (tensor<3x8xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
    %9 = stablehlo.multiply %6, %8 : tensor<3x16xf32>
    %10 = stablehlo.convert %arg3 : (tensor<8x16xbf16>) -> tensor<8x16xf32>
    %11 = stablehlo.dot_general %9, %10, contracting_dims = [1] x [1] : (tensor<3x16xf32>, tensor<8x16xf32>) -> tensor<3x8xf32>
    return %11 : tensor<3x8xf32>
  }
  func.func private @tessera.linear.0(%arg0: tensor<3x8xf32>, %arg1: tensor<16x8xbf16>) -> tensor<3x16xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<16x8xbf16>) -> tensor<16x8xf32>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [1] : (tensor<3x8xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
    return %1 : tensor<3x16xf32>
  }
  func.func private @tessera.linear.1(%arg0: tensor<3x8xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<16xf16>) -> tensor<3x16xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<3x8xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
    %1 = stablehlo.convert %arg2 : (tensor<16xf16>) -> tensor<16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<16xf32>) -> tensor<3x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<3x16xf32>
    return %3 : tensor<3x16xf32>
  }
  func.func private @tessera.linear.2(%arg0: tensor<3x8xf32>, %arg1: tensor<16x8xf16>, %arg2: tensor<16xf16>) -> tensor<3x16xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<16x8xf16>) -> tensor<16x8xf32>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [1] : (tensor<3x8xf32>, tensor<16x8xf32>) -> tensor<3x16xf32>
    %2 = stablehlo.convert %arg2 : (tensor<16xf16>) -> tensor<16xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<16xf32>) -> tensor<3x16xf32>
    %4 = stablehlo.add %1, %3 : tensor<3x16xf32>
    return %4 : tensor<3x16xf32>
  }
  func.func private @tessera.embedding.0(%arg0: tensor<10x8xbf16>, %arg1: tensor<3xi32>) -> tensor<3x8xf32> {
    %0 = stablehlo.convert %arg0 : (tensor<10x8xbf16>) -> tensor<10x8xf32>
    %1 = "stablehlo.gather"(%0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>}> : (tensor<10x8xf32>, tensor<3xi32>) -> tensor<3x8xf32>
    return %1 : tensor<3x8xf32>
  }
}
