module @prefill_embeddings_main_c32 {
  func.func public @main(%arg0: tensor<1344x64xf32> {tessera.name = "model.embed_tokens.weight", tessera.role = "weight"}, %arg1: tensor<64xf32> {tessera.name = "model.layers.0.input_layernorm.weight", tessera.role = "weight"}, %arg2: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.q_proj.weight", tessera.role = "weight"}, %arg3: tensor<32x64xf32> {tessera.name = "model.layers.0.self_attn.k_proj.weight", tessera.role = "weight"}, %arg4: tensor<32x64xf32> {tessera.name = "model.layers.0.self_attn.v_proj.weight", tessera.role = "weight"}, %arg5: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.o_proj.weight", tessera.role = "weight"}, %arg6: tensor<64xf32> {tessera.name = "model.layers.0.post_attention_layernorm.weight", tessera.role = "weight"}, %arg7: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.gate_proj.weight", tessera.role = "weight"}, %arg8: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.up_proj.weight", tessera.role = "weight"}, %arg9: tensor<64x160xf32> {tessera.name = "model.layers.0.mlp.down_proj.weight", tessera.role = "weight"}, %arg10: tensor<64xf32> {tessera.name = "model.layers.1.input_layernorm.weight", tessera.role = "weight"}, %arg11: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.q_proj.weight", tessera.role = "weight"}, %arg12: tensor<32x64xf32> {tessera.name = "model.layers.1.self_attn.k_proj.weight", tessera.role = "weight"}, %arg13: tensor<32x64xf32> {tessera.name = "model.layers.1.self_attn.v_proj.weight", tessera.role = "weight"}, %arg14: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.o_proj.weight", tessera.role = "weight"}, %arg15: tensor<64xf32> {tessera.name = "model.layers.1.post_attention_layernorm.weight", tessera.role = "weight"}, %arg16: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.gate_proj.weight", tessera.role = "weight"}, %arg17: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.up_proj.weight", tessera.role = "weight"}, %arg18: tensor<64x160xf32> {tessera.name = "model.layers.1.mlp.down_proj.weight", tessera.role = "weight"}, %arg19: tensor<64xf32> {tessera.name = "model.layers.2.input_layernorm.weight", tessera.role = "weight"}, %arg20: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.q_proj.weight", tessera.role = "weight"}, %arg21: tensor<32x64xf32> {tessera.name = "model.layers.2.self_attn.k_proj.weight", tessera.role = "weight"}, %arg22: tensor<32x64xf32> {tessera.name = "model.layers.2.self_attn.v_proj.weight", tessera.role = "weight"}, %arg23: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.o_proj.weight", tessera.role = "weight"}, %arg24: tensor<64xf32> {tessera.name = "model.layers.2.post_attention_layernorm.weight", tessera.role = "weight"}, %arg25: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.gate_proj.weight", tessera.role = "weight"}, %arg26: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.up_proj.weight", tessera.role = "weight"}, %arg27: tensor<64x160xf32> {tessera.name = "model.layers.2.mlp.down_proj.weight", tessera.role = "weight"}, %arg28: tensor<64xf32> {tessera.name = "model.norm.weight", tessera.role = "weight"}, %arg29: tensor<16x64xf32> {tessera.name = "embeddings", tessera.role = "input"}, %arg30: tensor<16xi32> {tessera.name = "positions", tessera.role = "input"}, %arg31: tensor<16x16xf32> {tessera.name = "bias", tessera.role = "input"}, %arg32: tensor<i32> {tessera.name = "length", tessera.role = "input"}) -> (tensor<1344xf32>, tensor<3x32x2x16xf32>, tensor<3x32x2x16xf32>) {
    %0 = stablehlo.constant dense<"0x0000803FB093463EC8081A3D4FF7EE3B2036E139F8C80F37C410DF35A707AD34"> : tensor<8xf32> loc("rope")
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<8xf32>) -> tensor<16x8xf32> loc("rope")
    %2 = stablehlo.convert %arg30 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<16xf32>) -> tensor<16x8xf32> loc("rope")
    %4 = stablehlo.multiply %3, %1 : tensor<16x8xf32> loc("rope")
    %5 = stablehlo.cosine %4 : tensor<16x8xf32> loc("rope")
    %6 = stablehlo.sine %4 : tensor<16x8xf32> loc("rope")
    %7 = stablehlo.composite "tessera.rms_norm" %arg29, %arg1 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %8 = stablehlo.composite "tessera.linear" %7, %arg2 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %9 = stablehlo.reshape %8 : (tensor<16x64xf32>) -> tensor<16x4x16xf32> loc("layer.0.attn")
    %10 = stablehlo.composite "tessera.linear" %7, %arg3 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32> loc("layer.0.attn")
    %11 = stablehlo.reshape %10 : (tensor<16x32xf32>) -> tensor<16x2x16xf32> loc("layer.0.attn")
    %12 = stablehlo.composite "tessera.linear" %7, %arg4 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32> loc("layer.0.attn")
    %13 = stablehlo.reshape %12 : (tensor<16x32xf32>) -> tensor<16x2x16xf32> loc("layer.0.attn")
    %14 = stablehlo.composite "tessera.rope" %9, %5, %6 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x4x16xf32> loc("layer.0.attn")
    %15 = stablehlo.composite "tessera.rope" %11, %5, %6 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x2x16xf32> loc("layer.0.attn")
    %16 = stablehlo.iota dim = 0 : tensor<16x2x16xi32> loc("layer.0.attn")
    %17 = stablehlo.broadcast_in_dim %arg32, dims = [] : (tensor<i32>) -> tensor<16x2x16xi32> loc("layer.0.attn")
    %18 = stablehlo.compare  LT, %16, %17,  SIGNED : (tensor<16x2x16xi32>, tensor<16x2x16xi32>) -> tensor<16x2x16xi1> loc("layer.0.attn")
    %19 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %20 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<f32>) -> tensor<16x2x16xf32> loc("layer.0.attn")
    %21 = stablehlo.select %18, %15, %20 : tensor<16x2x16xi1>, tensor<16x2x16xf32> loc("layer.0.attn")
    %22 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %23 = stablehlo.pad %21, %22, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x16xf32>, tensor<f32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %24 = stablehlo.iota dim = 0 : tensor<16x2x16xi32> loc("layer.0.attn")
    %25 = stablehlo.broadcast_in_dim %arg32, dims = [] : (tensor<i32>) -> tensor<16x2x16xi32> loc("layer.0.attn")
    %26 = stablehlo.compare  LT, %24, %25,  SIGNED : (tensor<16x2x16xi32>, tensor<16x2x16xi32>) -> tensor<16x2x16xi1> loc("layer.0.attn")
    %27 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %28 = stablehlo.broadcast_in_dim %27, dims = [] : (tensor<f32>) -> tensor<16x2x16xf32> loc("layer.0.attn")
    %29 = stablehlo.select %26, %13, %28 : tensor<16x2x16xi1>, tensor<16x2x16xf32> loc("layer.0.attn")
    %30 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %31 = stablehlo.pad %29, %30, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x16xf32>, tensor<f32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %32 = stablehlo.composite "tessera.attention" %14, %15, %13, %arg31 {composite_attributes = {causal = false, has_bias = true, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x16xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32>, tensor<16x16xf32>) -> tensor<16x4x16xf32> loc("layer.0.attn")
    %33 = stablehlo.reshape %32 : (tensor<16x4x16xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %34 = stablehlo.composite "tessera.linear" %33, %arg5 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %35 = stablehlo.add %arg29, %34 : tensor<16x64xf32> loc("layer.0.attn")
    %36 = stablehlo.composite "tessera.rms_norm" %35, %arg6 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %37 = stablehlo.composite "tessera.gated_mlp" %36, %arg7, %arg8, %arg9 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %38 = stablehlo.add %35, %37 : tensor<16x64xf32> loc("layer.0.mlp")
    %39 = stablehlo.composite "tessera.rms_norm" %38, %arg10 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %40 = stablehlo.composite "tessera.linear" %39, %arg11 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %41 = stablehlo.reshape %40 : (tensor<16x64xf32>) -> tensor<16x4x16xf32> loc("layer.1.attn")
    %42 = stablehlo.composite "tessera.linear" %39, %arg12 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32> loc("layer.1.attn")
    %43 = stablehlo.reshape %42 : (tensor<16x32xf32>) -> tensor<16x2x16xf32> loc("layer.1.attn")
    %44 = stablehlo.composite "tessera.linear" %39, %arg13 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32> loc("layer.1.attn")
    %45 = stablehlo.reshape %44 : (tensor<16x32xf32>) -> tensor<16x2x16xf32> loc("layer.1.attn")
    %46 = stablehlo.composite "tessera.rope" %41, %5, %6 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x4x16xf32> loc("layer.1.attn")
    %47 = stablehlo.composite "tessera.rope" %43, %5, %6 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x2x16xf32> loc("layer.1.attn")
    %48 = stablehlo.iota dim = 0 : tensor<16x2x16xi32> loc("layer.1.attn")
    %49 = stablehlo.broadcast_in_dim %arg32, dims = [] : (tensor<i32>) -> tensor<16x2x16xi32> loc("layer.1.attn")
    %50 = stablehlo.compare  LT, %48, %49,  SIGNED : (tensor<16x2x16xi32>, tensor<16x2x16xi32>) -> tensor<16x2x16xi1> loc("layer.1.attn")
    %51 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %52 = stablehlo.broadcast_in_dim %51, dims = [] : (tensor<f32>) -> tensor<16x2x16xf32> loc("layer.1.attn")
    %53 = stablehlo.select %50, %47, %52 : tensor<16x2x16xi1>, tensor<16x2x16xf32> loc("layer.1.attn")
    %54 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %55 = stablehlo.pad %53, %54, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x16xf32>, tensor<f32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %56 = stablehlo.iota dim = 0 : tensor<16x2x16xi32> loc("layer.1.attn")
    %57 = stablehlo.broadcast_in_dim %arg32, dims = [] : (tensor<i32>) -> tensor<16x2x16xi32> loc("layer.1.attn")
    %58 = stablehlo.compare  LT, %56, %57,  SIGNED : (tensor<16x2x16xi32>, tensor<16x2x16xi32>) -> tensor<16x2x16xi1> loc("layer.1.attn")
    %59 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %60 = stablehlo.broadcast_in_dim %59, dims = [] : (tensor<f32>) -> tensor<16x2x16xf32> loc("layer.1.attn")
    %61 = stablehlo.select %58, %45, %60 : tensor<16x2x16xi1>, tensor<16x2x16xf32> loc("layer.1.attn")
    %62 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %63 = stablehlo.pad %61, %62, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x16xf32>, tensor<f32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %64 = stablehlo.composite "tessera.attention" %46, %47, %45, %arg31 {composite_attributes = {causal = false, has_bias = true, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x16xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32>, tensor<16x16xf32>) -> tensor<16x4x16xf32> loc("layer.1.attn")
    %65 = stablehlo.reshape %64 : (tensor<16x4x16xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %66 = stablehlo.composite "tessera.linear" %65, %arg14 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %67 = stablehlo.add %38, %66 : tensor<16x64xf32> loc("layer.1.attn")
    %68 = stablehlo.composite "tessera.rms_norm" %67, %arg15 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %69 = stablehlo.composite "tessera.gated_mlp" %68, %arg16, %arg17, %arg18 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %70 = stablehlo.add %67, %69 : tensor<16x64xf32> loc("layer.1.mlp")
    %71 = stablehlo.composite "tessera.rms_norm" %70, %arg19 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %72 = stablehlo.composite "tessera.linear" %71, %arg20 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %73 = stablehlo.reshape %72 : (tensor<16x64xf32>) -> tensor<16x4x16xf32> loc("layer.2.attn")
    %74 = stablehlo.composite "tessera.linear" %71, %arg21 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32> loc("layer.2.attn")
    %75 = stablehlo.reshape %74 : (tensor<16x32xf32>) -> tensor<16x2x16xf32> loc("layer.2.attn")
    %76 = stablehlo.composite "tessera.linear" %71, %arg22 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32> loc("layer.2.attn")
    %77 = stablehlo.reshape %76 : (tensor<16x32xf32>) -> tensor<16x2x16xf32> loc("layer.2.attn")
    %78 = stablehlo.composite "tessera.rope" %73, %5, %6 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x4x16xf32> loc("layer.2.attn")
    %79 = stablehlo.composite "tessera.rope" %75, %5, %6 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x2x16xf32> loc("layer.2.attn")
    %80 = stablehlo.iota dim = 0 : tensor<16x2x16xi32> loc("layer.2.attn")
    %81 = stablehlo.broadcast_in_dim %arg32, dims = [] : (tensor<i32>) -> tensor<16x2x16xi32> loc("layer.2.attn")
    %82 = stablehlo.compare  LT, %80, %81,  SIGNED : (tensor<16x2x16xi32>, tensor<16x2x16xi32>) -> tensor<16x2x16xi1> loc("layer.2.attn")
    %83 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %84 = stablehlo.broadcast_in_dim %83, dims = [] : (tensor<f32>) -> tensor<16x2x16xf32> loc("layer.2.attn")
    %85 = stablehlo.select %82, %79, %84 : tensor<16x2x16xi1>, tensor<16x2x16xf32> loc("layer.2.attn")
    %86 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %87 = stablehlo.pad %85, %86, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x16xf32>, tensor<f32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %88 = stablehlo.iota dim = 0 : tensor<16x2x16xi32> loc("layer.2.attn")
    %89 = stablehlo.broadcast_in_dim %arg32, dims = [] : (tensor<i32>) -> tensor<16x2x16xi32> loc("layer.2.attn")
    %90 = stablehlo.compare  LT, %88, %89,  SIGNED : (tensor<16x2x16xi32>, tensor<16x2x16xi32>) -> tensor<16x2x16xi1> loc("layer.2.attn")
    %91 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %92 = stablehlo.broadcast_in_dim %91, dims = [] : (tensor<f32>) -> tensor<16x2x16xf32> loc("layer.2.attn")
    %93 = stablehlo.select %90, %77, %92 : tensor<16x2x16xi1>, tensor<16x2x16xf32> loc("layer.2.attn")
    %94 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %95 = stablehlo.pad %93, %94, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x16xf32>, tensor<f32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %96 = stablehlo.composite "tessera.attention" %78, %79, %77, %arg31 {composite_attributes = {causal = false, has_bias = true, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x16xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32>, tensor<16x16xf32>) -> tensor<16x4x16xf32> loc("layer.2.attn")
    %97 = stablehlo.reshape %96 : (tensor<16x4x16xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %98 = stablehlo.composite "tessera.linear" %97, %arg23 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %99 = stablehlo.add %70, %98 : tensor<16x64xf32> loc("layer.2.attn")
    %100 = stablehlo.composite "tessera.rms_norm" %99, %arg24 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %101 = stablehlo.composite "tessera.gated_mlp" %100, %arg25, %arg26, %arg27 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %102 = stablehlo.add %99, %101 : tensor<16x64xf32> loc("layer.2.mlp")
    %103 = stablehlo.constant dense<1> : tensor<i32> loc("last_token")
    %104 = stablehlo.subtract %arg32, %103 : tensor<i32> loc("last_token")
    %105 = stablehlo.constant dense<0> : tensor<i32> loc("last_token")
    %106 = stablehlo.dynamic_slice %102, %104, %105, sizes = [1, 64] : (tensor<16x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32> loc("last_token")
    %107 = stablehlo.composite "tessera.rms_norm" %106, %arg28 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<1x64xf32>, tensor<64xf32>) -> tensor<1x64xf32> loc("lm_head")
    %108 = stablehlo.composite "tessera.linear" %107, %arg0 {decomposition = @tessera.linear.2} : (tensor<1x64xf32>, tensor<1344x64xf32>) -> tensor<1x1344xf32> loc("lm_head")
    %109 = stablehlo.reshape %108 : (tensor<1x1344xf32>) -> tensor<1344xf32> loc("lm_head")
    %110 = stablehlo.reshape %23 : (tensor<32x2x16xf32>) -> tensor<1x32x2x16xf32> loc("kv")
    %111 = stablehlo.reshape %55 : (tensor<32x2x16xf32>) -> tensor<1x32x2x16xf32> loc("kv")
    %112 = stablehlo.reshape %87 : (tensor<32x2x16xf32>) -> tensor<1x32x2x16xf32> loc("kv")
    %113 = stablehlo.concatenate %110, %111, %112, dim = 0 : (tensor<1x32x2x16xf32>, tensor<1x32x2x16xf32>, tensor<1x32x2x16xf32>) -> tensor<3x32x2x16xf32> loc("kv")
    %114 = stablehlo.reshape %31 : (tensor<32x2x16xf32>) -> tensor<1x32x2x16xf32> loc("kv")
    %115 = stablehlo.reshape %63 : (tensor<32x2x16xf32>) -> tensor<1x32x2x16xf32> loc("kv")
    %116 = stablehlo.reshape %95 : (tensor<32x2x16xf32>) -> tensor<1x32x2x16xf32> loc("kv")
    %117 = stablehlo.concatenate %114, %115, %116, dim = 0 : (tensor<1x32x2x16xf32>, tensor<1x32x2x16xf32>, tensor<1x32x2x16xf32>) -> tensor<3x32x2x16xf32> loc("kv")
    return %109, %113, %117 : tensor<1344xf32>, tensor<3x32x2x16xf32>, tensor<3x32x2x16xf32>
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
  func.func private @tessera.attention.0(%arg0: tensor<16x4x16xf32>, %arg1: tensor<16x2x16xf32>, %arg2: tensor<16x2x16xf32>, %arg3: tensor<16x16xf32>) -> tensor<16x4x16xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<16x4x16xf32>) -> tensor<16x2x2x16xf32>
    %1 = stablehlo.dot_general %0, %arg1, batching_dims = [1] x [1], contracting_dims = [3] x [2] : (tensor<16x2x2x16xf32>, tensor<16x2x16xf32>) -> tensor<2x16x2x16xf32>
    %2 = stablehlo.constant dense<0x3E800000> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<2x16x2x16xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<2x16x2x16xf32>
    %5 = stablehlo.broadcast_in_dim %arg3, dims = [1, 3] : (tensor<16x16xf32>) -> tensor<2x16x2x16xf32>
    %6 = stablehlo.add %4, %5 : tensor<2x16x2x16xf32>
    %7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %8 = "stablehlo.reduce"(%6, %7) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %9 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %9 : tensor<f32>
    }) : (tensor<2x16x2x16xf32>, tensor<f32>) -> tensor<2x16x2xf32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<2x16x2xf32>) -> tensor<2x16x2x16xf32>
    %11 = stablehlo.subtract %6, %10 : tensor<2x16x2x16xf32>
    %12 = stablehlo.exponential %11 : tensor<2x16x2x16xf32>
    %13 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %14 = "stablehlo.reduce"(%12, %13) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %15 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %15 : tensor<f32>
    }) : (tensor<2x16x2x16xf32>, tensor<f32>) -> tensor<2x16x2xf32>
    %16 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2] : (tensor<2x16x2xf32>) -> tensor<2x16x2x16xf32>
    %17 = stablehlo.divide %12, %16 : tensor<2x16x2x16xf32>
    %18 = stablehlo.dot_general %17, %arg2, batching_dims = [0] x [1], contracting_dims = [3] x [0] : (tensor<2x16x2x16xf32>, tensor<16x2x16xf32>) -> tensor<2x16x2x16xf32>
    %19 = stablehlo.transpose %18, dims = [1, 0, 2, 3] : (tensor<2x16x2x16xf32>) -> tensor<16x2x2x16xf32>
    %20 = stablehlo.reshape %19 : (tensor<16x2x2x16xf32>) -> tensor<16x4x16xf32>
    return %20 : tensor<16x4x16xf32>
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
