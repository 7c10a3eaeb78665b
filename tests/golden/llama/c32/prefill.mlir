module @prefill_main_c32 {
  func.func public @main(%arg0: tensor<1344x64xf32> {tessera.name = "model.embed_tokens.weight", tessera.role = "weight"}, %arg1: tensor<64xf32> {tessera.name = "model.layers.0.input_layernorm.weight", tessera.role = "weight"}, %arg2: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.q_proj.weight", tessera.role = "weight"}, %arg3: tensor<32x64xf32> {tessera.name = "model.layers.0.self_attn.k_proj.weight", tessera.role = "weight"}, %arg4: tensor<32x64xf32> {tessera.name = "model.layers.0.self_attn.v_proj.weight", tessera.role = "weight"}, %arg5: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.o_proj.weight", tessera.role = "weight"}, %arg6: tensor<64xf32> {tessera.name = "model.layers.0.post_attention_layernorm.weight", tessera.role = "weight"}, %arg7: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.gate_proj.weight", tessera.role = "weight"}, %arg8: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.up_proj.weight", tessera.role = "weight"}, %arg9: tensor<64x160xf32> {tessera.name = "model.layers.0.mlp.down_proj.weight", tessera.role = "weight"}, %arg10: tensor<64xf32> {tessera.name = "model.layers.1.input_layernorm.weight", tessera.role = "weight"}, %arg11: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.q_proj.weight", tessera.role = "weight"}, %arg12: tensor<32x64xf32> {tessera.name = "model.layers.1.self_attn.k_proj.weight", tessera.role = "weight"}, %arg13: tensor<32x64xf32> {tessera.name = "model.layers.1.self_attn.v_proj.weight", tessera.role = "weight"}, %arg14: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.o_proj.weight", tessera.role = "weight"}, %arg15: tensor<64xf32> {tessera.name = "model.layers.1.post_attention_layernorm.weight", tessera.role = "weight"}, %arg16: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.gate_proj.weight", tessera.role = "weight"}, %arg17: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.up_proj.weight", tessera.role = "weight"}, %arg18: tensor<64x160xf32> {tessera.name = "model.layers.1.mlp.down_proj.weight", tessera.role = "weight"}, %arg19: tensor<64xf32> {tessera.name = "model.layers.2.input_layernorm.weight", tessera.role = "weight"}, %arg20: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.q_proj.weight", tessera.role = "weight"}, %arg21: tensor<32x64xf32> {tessera.name = "model.layers.2.self_attn.k_proj.weight", tessera.role = "weight"}, %arg22: tensor<32x64xf32> {tessera.name = "model.layers.2.self_attn.v_proj.weight", tessera.role = "weight"}, %arg23: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.o_proj.weight", tessera.role = "weight"}, %arg24: tensor<64xf32> {tessera.name = "model.layers.2.post_attention_layernorm.weight", tessera.role = "weight"}, %arg25: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.gate_proj.weight", tessera.role = "weight"}, %arg26: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.up_proj.weight", tessera.role = "weight"}, %arg27: tensor<64x160xf32> {tessera.name = "model.layers.2.mlp.down_proj.weight", tessera.role = "weight"}, %arg28: tensor<64xf32> {tessera.name = "model.norm.weight", tessera.role = "weight"}, %arg29: tensor<16xi32> {tessera.name = "tokens", tessera.role = "input"}, %arg30: tensor<i32> {tessera.name = "length", tessera.role = "input"}) -> (tensor<1344xf32>, tensor<3x32x2x16xf32>, tensor<3x32x2x16xf32>) {
    %0 = stablehlo.iota dim = 0 : tensor<16xi32> loc("inputs")
    %1 = stablehlo.composite "tessera.embedding" %arg0, %arg29 {decomposition = @tessera.embedding.0} : (tensor<1344x64xf32>, tensor<16xi32>) -> tensor<16x64xf32> loc("embed_tokens")
    %2 = stablehlo.constant dense<"0x0000803FB093463EC8081A3D4FF7EE3B2036E139F8C80F37C410DF35A707AD34"> : tensor<8xf32> loc("rope")
    %3 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<8xf32>) -> tensor<16x8xf32> loc("rope")
    %4 = stablehlo.convert %0 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<16xf32>) -> tensor<16x8xf32> loc("rope")
    %6 = stablehlo.multiply %5, %3 : tensor<16x8xf32> loc("rope")
    %7 = stablehlo.cosine %6 : tensor<16x8xf32> loc("rope")
    %8 = stablehlo.sine %6 : tensor<16x8xf32> loc("rope")
    %9 = stablehlo.composite "tessera.rms_norm" %1, %arg1 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %10 = stablehlo.composite "tessera.linear" %9, %arg2 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %11 = stablehlo.reshape %10 : (tensor<16x64xf32>) -> tensor<16x4x16xf32> loc("layer.0.attn")
    %12 = stablehlo.composite "tessera.linear" %9, %arg3 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32> loc("layer.0.attn")
    %13 = stablehlo.reshape %12 : (tensor<16x32xf32>) -> tensor<16x2x16xf32> loc("layer.0.attn")
    %14 = stablehlo.composite "tessera.linear" %9, %arg4 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32> loc("layer.0.attn")
    %15 = stablehlo.reshape %14 : (tensor<16x32xf32>) -> tensor<16x2x16xf32> loc("layer.0.attn")
    %16 = stablehlo.composite "tessera.rope" %11, %7, %8 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x4x16xf32> loc("layer.0.attn")
    %17 = stablehlo.composite "tessera.rope" %13, %7, %8 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x2x16xf32> loc("layer.0.attn")
    %18 = stablehlo.iota dim = 0 : tensor<16x2x16xi32> loc("layer.0.attn")
    %19 = stablehlo.broadcast_in_dim %arg30, dims = [] : (tensor<i32>) -> tensor<16x2x16xi32> loc("layer.0.attn")
    %20 = stablehlo.compare  LT, %18, %19,  SIGNED : (tensor<16x2x16xi32>, tensor<16x2x16xi32>) -> tensor<16x2x16xi1> loc("layer.0.attn")
    %21 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<f32>) -> tensor<16x2x16xf32> loc("layer.0.attn")
    %23 = stablehlo.select %20, %17, %22 : tensor<16x2x16xi1>, tensor<16x2x16xf32> loc("layer.0.attn")
    %24 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %25 = stablehlo.pad %23, %24, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x16xf32>, tensor<f32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %26 = stablehlo.iota dim = 0 : tensor<16x2x16xi32> loc("layer.0.attn")
    %27 = stablehlo.broadcast_in_dim %arg30, dims = [] : (tensor<i32>) -> tensor<16x2x16xi32> loc("layer.0.attn")
    %28 = stablehlo.compare  LT, %26, %27,  SIGNED : (tensor<16x2x16xi32>, tensor<16x2x16xi32>) -> tensor<16x2x16xi1> loc("layer.0.attn")
    %29 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %30 = stablehlo.broadcast_in_dim %29, dims = [] : (tensor<f32>) -> tensor<16x2x16xf32> loc("layer.0.attn")
    %31 = stablehlo.select %28, %15, %30 : tensor<16x2x16xi1>, tensor<16x2x16xf32> loc("layer.0.attn")
    %32 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %33 = stablehlo.pad %31, %32, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x16xf32>, tensor<f32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %34 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %35 = stablehlo.composite "tessera.attention" %16, %17, %15, %34 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x16xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32>, tensor<i32>) -> tensor<16x4x16xf32> loc("layer.0.attn")
    %36 = stablehlo.reshape %35 : (tensor<16x4x16xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %37 = stablehlo.composite "tessera.linear" %36, %arg5 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %38 = stablehlo.add %1, %37 : tensor<16x64xf32> loc("layer.0.attn")
    %39 = stablehlo.composite "tessera.rms_norm" %38, %arg6 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %40 = stablehlo.composite "tessera.gated_mlp" %39, %arg7, %arg8, %arg9 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %41 = stablehlo.add %38, %40 : tensor<16x64xf32> loc("layer.0.mlp")
    %42 = stablehlo.composite "tessera.rms_norm" %41, %arg10 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %43 = stablehlo.composite "tessera.linear" %42, %arg11 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %44 = stablehlo.reshape %43 : (tensor<16x64xf32>) -> tensor<16x4x16xf32> loc("layer.1.attn")
    %45 = stablehlo.composite "tessera.linear" %42, %arg12 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32> loc("layer.1.attn")
    %46 = stablehlo.reshape %45 : (tensor<16x32xf32>) -> tensor<16x2x16xf32> loc("layer.1.attn")
    %47 = stablehlo.composite "tessera.linear" %42, %arg13 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32> loc("layer.1.attn")
    %48 = stablehlo.reshape %47 : (tensor<16x32xf32>) -> tensor<16x2x16xf32> loc("layer.1.attn")
    %49 = stablehlo.composite "tessera.rope" %44, %7, %8 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x4x16xf32> loc("layer.1.attn")
    %50 = stablehlo.composite "tessera.rope" %46, %7, %8 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x2x16xf32> loc("layer.1.attn")
    %51 = stablehlo.iota dim = 0 : tensor<16x2x16xi32> loc("layer.1.attn")
    %52 = stablehlo.broadcast_in_dim %arg30, dims = [] : (tensor<i32>) -> tensor<16x2x16xi32> loc("layer.1.attn")
    %53 = stablehlo.compare  LT, %51, %52,  SIGNED : (tensor<16x2x16xi32>, tensor<16x2x16xi32>) -> tensor<16x2x16xi1> loc("layer.1.attn")
    %54 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %55 = stablehlo.broadcast_in_dim %54, dims = [] : (tensor<f32>) -> tensor<16x2x16xf32> loc("layer.1.attn")
    %56 = stablehlo.select %53, %50, %55 : tensor<16x2x16xi1>, tensor<16x2x16xf32> loc("layer.1.attn")
    %57 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %58 = stablehlo.pad %56, %57, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x16xf32>, tensor<f32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %59 = stablehlo.iota dim = 0 : tensor<16x2x16xi32> loc("layer.1.attn")
    %60 = stablehlo.broadcast_in_dim %arg30, dims = [] : (tensor<i32>) -> tensor<16x2x16xi32> loc("layer.1.attn")
    %61 = stablehlo.compare  LT, %59, %60,  SIGNED : (tensor<16x2x16xi32>, tensor<16x2x16xi32>) -> tensor<16x2x16xi1> loc("layer.1.attn")
    %62 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %63 = stablehlo.broadcast_in_dim %62, dims = [] : (tensor<f32>) -> tensor<16x2x16xf32> loc("layer.1.attn")
    %64 = stablehlo.select %61, %48, %63 : tensor<16x2x16xi1>, tensor<16x2x16xf32> loc("layer.1.attn")
    %65 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %66 = stablehlo.pad %64, %65, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x16xf32>, tensor<f32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %67 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %68 = stablehlo.composite "tessera.attention" %49, %50, %48, %67 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x16xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32>, tensor<i32>) -> tensor<16x4x16xf32> loc("layer.1.attn")
    %69 = stablehlo.reshape %68 : (tensor<16x4x16xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %70 = stablehlo.composite "tessera.linear" %69, %arg14 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %71 = stablehlo.add %41, %70 : tensor<16x64xf32> loc("layer.1.attn")
    %72 = stablehlo.composite "tessera.rms_norm" %71, %arg15 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %73 = stablehlo.composite "tessera.gated_mlp" %72, %arg16, %arg17, %arg18 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %74 = stablehlo.add %71, %73 : tensor<16x64xf32> loc("layer.1.mlp")
    %75 = stablehlo.composite "tessera.rms_norm" %74, %arg19 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %76 = stablehlo.composite "tessera.linear" %75, %arg20 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %77 = stablehlo.reshape %76 : (tensor<16x64xf32>) -> tensor<16x4x16xf32> loc("layer.2.attn")
    %78 = stablehlo.composite "tessera.linear" %75, %arg21 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32> loc("layer.2.attn")
    %79 = stablehlo.reshape %78 : (tensor<16x32xf32>) -> tensor<16x2x16xf32> loc("layer.2.attn")
    %80 = stablehlo.composite "tessera.linear" %75, %arg22 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32> loc("layer.2.attn")
    %81 = stablehlo.reshape %80 : (tensor<16x32xf32>) -> tensor<16x2x16xf32> loc("layer.2.attn")
    %82 = stablehlo.composite "tessera.rope" %77, %7, %8 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x4x16xf32> loc("layer.2.attn")
    %83 = stablehlo.composite "tessera.rope" %79, %7, %8 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x2x16xf32> loc("layer.2.attn")
    %84 = stablehlo.iota dim = 0 : tensor<16x2x16xi32> loc("layer.2.attn")
    %85 = stablehlo.broadcast_in_dim %arg30, dims = [] : (tensor<i32>) -> tensor<16x2x16xi32> loc("layer.2.attn")
    %86 = stablehlo.compare  LT, %84, %85,  SIGNED : (tensor<16x2x16xi32>, tensor<16x2x16xi32>) -> tensor<16x2x16xi1> loc("layer.2.attn")
    %87 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %88 = stablehlo.broadcast_in_dim %87, dims = [] : (tensor<f32>) -> tensor<16x2x16xf32> loc("layer.2.attn")
    %89 = stablehlo.select %86, %83, %88 : tensor<16x2x16xi1>, tensor<16x2x16xf32> loc("layer.2.attn")
    %90 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %91 = stablehlo.pad %89, %90, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x16xf32>, tensor<f32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %92 = stablehlo.iota dim = 0 : tensor<16x2x16xi32> loc("layer.2.attn")
    %93 = stablehlo.broadcast_in_dim %arg30, dims = [] : (tensor<i32>) -> tensor<16x2x16xi32> loc("layer.2.attn")
    %94 = stablehlo.compare  LT, %92, %93,  SIGNED : (tensor<16x2x16xi32>, tensor<16x2x16xi32>) -> tensor<16x2x16xi1> loc("layer.2.attn")
    %95 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %96 = stablehlo.broadcast_in_dim %95, dims = [] : (tensor<f32>) -> tensor<16x2x16xf32> loc("layer.2.attn")
    %97 = stablehlo.select %94, %81, %96 : tensor<16x2x16xi1>, tensor<16x2x16xf32> loc("layer.2.attn")
    %98 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %99 = stablehlo.pad %97, %98, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x16xf32>, tensor<f32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %100 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %101 = stablehlo.composite "tessera.attention" %82, %83, %81, %100 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x16xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32>, tensor<i32>) -> tensor<16x4x16xf32> loc("layer.2.attn")
    %102 = stablehlo.reshape %101 : (tensor<16x4x16xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %103 = stablehlo.composite "tessera.linear" %102, %arg23 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %104 = stablehlo.add %74, %103 : tensor<16x64xf32> loc("layer.2.attn")
    %105 = stablehlo.composite "tessera.rms_norm" %104, %arg24 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %106 = stablehlo.composite "tessera.gated_mlp" %105, %arg25, %arg26, %arg27 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %107 = stablehlo.add %104, %106 : tensor<16x64xf32> loc("layer.2.mlp")
    %108 = stablehlo.constant dense<1> : tensor<i32> loc("last_token")
    %109 = stablehlo.subtract %arg30, %108 : tensor<i32> loc("last_token")
    %110 = stablehlo.constant dense<0> : tensor<i32> loc("last_token")
    %111 = stablehlo.dynamic_slice %107, %109, %110, sizes = [1, 64] : (tensor<16x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32> loc("last_token")
    %112 = stablehlo.composite "tessera.rms_norm" %111, %arg28 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<1x64xf32>, tensor<64xf32>) -> tensor<1x64xf32> loc("lm_head")
    %113 = stablehlo.composite "tessera.linear" %112, %arg0 {decomposition = @tessera.linear.2} : (tensor<1x64xf32>, tensor<1344x64xf32>) -> tensor<1x1344xf32> loc("lm_head")
    %114 = stablehlo.reshape %113 : (tensor<1x1344xf32>) -> tensor<1344xf32> loc("lm_head")
    %115 = stablehlo.reshape %25 : (tensor<32x2x16xf32>) -> tensor<1x32x2x16xf32> loc("kv")
    %116 = stablehlo.reshape %58 : (tensor<32x2x16xf32>) -> tensor<1x32x2x16xf32> loc("kv")
    %117 = stablehlo.reshape %91 : (tensor<32x2x16xf32>) -> tensor<1x32x2x16xf32> loc("kv")
    %118 = stablehlo.concatenate %115, %116, %117, dim = 0 : (tensor<1x32x2x16xf32>, tensor<1x32x2x16xf32>, tensor<1x32x2x16xf32>) -> tensor<3x32x2x16xf32> loc("kv")
    %119 = stablehlo.reshape %33 : (tensor<32x2x16xf32>) -> tensor<1x32x2x16xf32> loc("kv")
    %120 = stablehlo.reshape %66 : (tensor<32x2x16xf32>) -> tensor<1x32x2x16xf32> loc("kv")
    %121 = stablehlo.reshape %99 : (tensor<32x2x16xf32>) -> tensor<1x32x2x16xf32> loc("kv")
    %122 = stablehlo.concatenate %119, %120, %121, dim = 0 : (tensor<1x32x2x16xf32>, tensor<1x32x2x16xf32>, tensor<1x32x2x16xf32>) -> tensor<3x32x2x16xf32> loc("kv")
    return %114, %118, %122 : tensor<1344xf32>, tensor<3x32x2x16xf32>, tensor<3x32x2x16xf32>
  }
  func.func private @tessera.embedding.0(%arg0: tensor<1344x64xf32>, %arg1: tensor<16xi32>) -> tensor<16x64xf32> {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 64>}> : (tensor<1344x64xf32>, tensor<16xi32>) -> tensor<16x64xf32>
    return %0 : tensor<16x64xf32>
  }
  func.func private @tessera.rms_norm.0(%arg0: tensor<16x64xf32>, %arg1: tensor<64xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<16x64xf32>
    %1 = stablehlo.constant dense<0x42800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %3 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %4 = "stablehlo.reduce"(%0, %3) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<16x64xf32>, tensor<f32>) -> tensor<16xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<16xf32>) -> tensor<16x64xf32>
    %7 = stablehlo.divide %6, %2 : tensor<16x64xf32>
    %8 = stablehlo.constant dense<0x3727C5AC> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %10 = stablehlo.add %7, %9 : tensor<16x64xf32>
    %11 = stablehlo.rsqrt %10 : tensor<16x64xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<16x64xf32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<16x64xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<16x64xf32>
    return %14 : tensor<16x64xf32>
  }
  func.func private @tessera.linear.0(%arg0: tensor<16x64xf32>, %arg1: tensor<64x64xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    return %0 : tensor<16x64xf32>
  }
  func.func private @tessera.linear.1(%arg0: tensor<16x64xf32>, %arg1: tensor<32x64xf32>) -> tensor<16x32xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
    return %0 : tensor<16x32xf32>
  }
  func.func private @tessera.rope.0(%arg0: tensor<16x4x16xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<16x8xf32>) -> tensor<16x4x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<16x8xf32>) -> tensor<16x4x8xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0, 2] : (tensor<16x8xf32>) -> tensor<16x4x8xf32>
    %2 = stablehlo.slice %arg0 [0:16, 0:4, 0:8] : (tensor<16x4x16xf32>) -> tensor<16x4x8xf32>
    %3 = stablehlo.slice %arg0 [0:16, 0:4, 8:16] : (tensor<16x4x16xf32>) -> tensor<16x4x8xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<16x4x8xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<16x4x8xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<16x4x8xf32>
    %7 = stablehlo.multiply %2, %1 : tensor<16x4x8xf32>
    %8 = stablehlo.multiply %3, %0 : tensor<16x4x8xf32>
    %9 = stablehlo.add %8, %7 : tensor<16x4x8xf32>
    %10 = stablehlo.concatenate %6, %9, dim = 2 : (tensor<16x4x8xf32>, tensor<16x4x8xf32>) -> tensor<16x4x16xf32>
    return %10 : tensor<16x4x16xf32>
  }
  func.func private @tessera.rope.1(%arg0: tensor<16x2x16xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<16x8xf32>) -> tensor<16x2x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<16x8xf32>) -> tensor<16x2x8xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0, 2] : (tensor<16x8xf32>) -> tensor<16x2x8xf32>
    %2 = stablehlo.slice %arg0 [0:16, 0:2, 0:8] : (tensor<16x2x16xf32>) -> tensor<16x2x8xf32>
    %3 = stablehlo.slice %arg0 [0:16, 0:2, 8:16] : (tensor<16x2x16xf32>) -> tensor<16x2x8xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<16x2x8xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<16x2x8xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<16x2x8xf32>
    %7 = stablehlo.multiply %2, %1 : tensor<16x2x8xf32>
    %8 = stablehlo.multiply %3, %0 : tensor<16x2x8xf32>
    %9 = stablehlo.add %8, %7 : tensor<16x2x8xf32>
    %10 = stablehlo.concatenate %6, %9, dim = 2 : (tensor<16x2x8xf32>, tensor<16x2x8xf32>) -> tensor<16x2x16xf32>
    return %10 : tensor<16x2x16xf32>
  }
  func.func private @tessera.attention.0(%arg0: tensor<16x4x16xf32>, %arg1: tensor<16x2x16xf32>, %arg2: tensor<16x2x16xf32>, %arg3: tensor<i32>) -> tensor<16x4x16xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<16x4x16xf32>) -> tensor<16x2x2x16xf32>
    %1 = stablehlo.dot_general %0, %arg1, batching_dims = [1] x [1], contracting_dims = [3] x [2] : (tensor<16x2x2x16xf32>, tensor<16x2x16xf32>) -> tensor<2x16x2x16xf32>
    %2 = stablehlo.constant dense<0x3E800000> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<2x16x2x16xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<2x16x2x16xf32>
    %5 = stablehlo.iota dim = 0 : tensor<16x16xi32>
    %6 = stablehlo.iota dim = 1 : tensor<16x16xi32>
    %7 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<i32>) -> tensor<16x16xi32>
    %8 = stablehlo.add %5, %7 : tensor<16x16xi32>
    %9 = stablehlo.compare  LE, %6, %8,  SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [1, 3] : (tensor<16x16xi1>) -> tensor<2x16x2x16xi1>
    %11 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<2x16x2x16xf32>
    %13 = stablehlo.select %10, %4, %12 : tensor<2x16x2x16xi1>, tensor<2x16x2x16xf32>
    %14 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %15 = "stablehlo.reduce"(%13, %14) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %16 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %16 : tensor<f32>
    }) : (tensor<2x16x2x16xf32>, tensor<f32>) -> tensor<2x16x2xf32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<2x16x2xf32>) -> tensor<2x16x2x16xf32>
    %18 = stablehlo.subtract %13, %17 : tensor<2x16x2x16xf32>
    %19 = stablehlo.exponential %18 : tensor<2x16x2x16xf32>
    %20 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %21 = "stablehlo.reduce"(%19, %20) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %22 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %22 : tensor<f32>
    }) : (tensor<2x16x2x16xf32>, tensor<f32>) -> tensor<2x16x2xf32>
    %23 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2] : (tensor<2x16x2xf32>) -> tensor<2x16x2x16xf32>
    %24 = stablehlo.divide %19, %23 : tensor<2x16x2x16xf32>
    %25 = stablehlo.dot_general %24, %arg2, batching_dims = [0] x [1], contracting_dims = [3] x [0] : (tensor<2x16x2x16xf32>, tensor<16x2x16xf32>) -> tensor<2x16x2x16xf32>
    %26 = stablehlo.transpose %25, dims = [1, 0, 2, 3] : (tensor<2x16x2x16xf32>) -> tensor<16x2x2x16xf32>
    %27 = stablehlo.reshape %26 : (tensor<16x2x2x16xf32>) -> tensor<16x4x16xf32>
    return %27 : tensor<16x4x16xf32>
  }
  func.func private @tessera.gated_mlp.0(%arg0: tensor<16x64xf32>, %arg1: tensor<160x64xf32>, %arg2: tensor<160x64xf32>, %arg3: tensor<64x160xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<160x64xf32>) -> tensor<16x160xf32>
    %1 = stablehlo.logistic %0 : tensor<16x160xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<16x160xf32>
    %3 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<160x64xf32>) -> tensor<16x160xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<16x160xf32>
    %5 = stablehlo.dot_general %4, %arg3, contracting_dims = [1] x [1] : (tensor<16x160xf32>, tensor<64x160xf32>) -> tensor<16x64xf32>
    return %5 : tensor<16x64xf32>
  }
  func.func private @tessera.rms_norm.1(%arg0: tensor<1x64xf32>, %arg1: tensor<64xf32>) -> tensor<1x64xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<1x64xf32>
    %1 = stablehlo.constant dense<0x42800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<1x64xf32>
    %3 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %4 = "stablehlo.reduce"(%0, %3) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<1x64xf32>, tensor<f32>) -> tensor<1xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<1xf32>) -> tensor<1x64xf32>
    %7 = stablehlo.divide %6, %2 : tensor<1x64xf32>
    %8 = stablehlo.constant dense<0x3727C5AC> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<1x64xf32>
    %10 = stablehlo.add %7, %9 : tensor<1x64xf32>
    %11 = stablehlo.rsqrt %10 : tensor<1x64xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<1x64xf32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<1x64xf32>
    return %14 : tensor<1x64xf32>
  }
  func.func private @tessera.linear.2(%arg0: tensor<1x64xf32>, %arg1: tensor<1344x64xf32>) -> tensor<1x1344xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<1x64xf32>, tensor<1344x64xf32>) -> tensor<1x1344xf32>
    return %0 : tensor<1x1344xf32>
  }
}
