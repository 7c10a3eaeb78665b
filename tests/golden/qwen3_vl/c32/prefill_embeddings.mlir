module @prefill_embeddings_main_c32 {
  func.func public @main(%arg0: tensor<1344x64xf32> {tessera.name = "model.language_model.embed_tokens.weight", tessera.role = "weight"}, %arg1: tensor<64xf32> {tessera.name = "model.language_model.layers.0.input_layernorm.weight", tessera.role = "weight"}, %arg2: tensor<128x64xf32> {tessera.name = "model.language_model.layers.0.self_attn.q_proj.weight", tessera.role = "weight"}, %arg3: tensor<64x64xf32> {tessera.name = "model.language_model.layers.0.self_attn.k_proj.weight", tessera.role = "weight"}, %arg4: tensor<64x64xf32> {tessera.name = "model.language_model.layers.0.self_attn.v_proj.weight", tessera.role = "weight"}, %arg5: tensor<32xf32> {tessera.name = "model.language_model.layers.0.self_attn.q_norm.weight", tessera.role = "weight"}, %arg6: tensor<32xf32> {tessera.name = "model.language_model.layers.0.self_attn.k_norm.weight", tessera.role = "weight"}, %arg7: tensor<64x128xf32> {tessera.name = "model.language_model.layers.0.self_attn.o_proj.weight", tessera.role = "weight"}, %arg8: tensor<64xf32> {tessera.name = "model.language_model.layers.0.post_attention_layernorm.weight", tessera.role = "weight"}, %arg9: tensor<160x64xf32> {tessera.name = "model.language_model.layers.0.mlp.gate_proj.weight", tessera.role = "weight"}, %arg10: tensor<160x64xf32> {tessera.name = "model.language_model.layers.0.mlp.up_proj.weight", tessera.role = "weight"}, %arg11: tensor<64x160xf32> {tessera.name = "model.language_model.layers.0.mlp.down_proj.weight", tessera.role = "weight"}, %arg12: tensor<64xf32> {tessera.name = "model.language_model.layers.1.input_layernorm.weight", tessera.role = "weight"}, %arg13: tensor<128x64xf32> {tessera.name = "model.language_model.layers.1.self_attn.q_proj.weight", tessera.role = "weight"}, %arg14: tensor<64x64xf32> {tessera.name = "model.language_model.layers.1.self_attn.k_proj.weight", tessera.role = "weight"}, %arg15: tensor<64x64xf32> {tessera.name = "model.language_model.layers.1.self_attn.v_proj.weight", tessera.role = "weight"}, %arg16: tensor<32xf32> {tessera.name = "model.language_model.layers.1.self_attn.q_norm.weight", tessera.role = "weight"}, %arg17: tensor<32xf32> {tessera.name = "model.language_model.layers.1.self_attn.k_norm.weight", tessera.role = "weight"}, %arg18: tensor<64x128xf32> {tessera.name = "model.language_model.layers.1.self_attn.o_proj.weight", tessera.role = "weight"}, %arg19: tensor<64xf32> {tessera.name = "model.language_model.layers.1.post_attention_layernorm.weight", tessera.role = "weight"}, %arg20: tensor<160x64xf32> {tessera.name = "model.language_model.layers.1.mlp.gate_proj.weight", tessera.role = "weight"}, %arg21: tensor<160x64xf32> {tessera.name = "model.language_model.layers.1.mlp.up_proj.weight", tessera.role = "weight"}, %arg22: tensor<64x160xf32> {tessera.name = "model.language_model.layers.1.mlp.down_proj.weight", tessera.role = "weight"}, %arg23: tensor<64xf32> {tessera.name = "model.language_model.layers.2.input_layernorm.weight", tessera.role = "weight"}, %arg24: tensor<128x64xf32> {tessera.name = "model.language_model.layers.2.self_attn.q_proj.weight", tessera.role = "weight"}, %arg25: tensor<64x64xf32> {tessera.name = "model.language_model.layers.2.self_attn.k_proj.weight", tessera.role = "weight"}, %arg26: tensor<64x64xf32> {tessera.name = "model.language_model.layers.2.self_attn.v_proj.weight", tessera.role = "weight"}, %arg27: tensor<32xf32> {tessera.name = "model.language_model.layers.2.self_attn.q_norm.weight", tessera.role = "weight"}, %arg28: tensor<32xf32> {tessera.name = "model.language_model.layers.2.self_attn.k_norm.weight", tessera.role = "weight"}, %arg29: tensor<64x128xf32> {tessera.name = "model.language_model.layers.2.self_attn.o_proj.weight", tessera.role = "weight"}, %arg30: tensor<64xf32> {tessera.name = "model.language_model.layers.2.post_attention_layernorm.weight", tessera.role = "weight"}, %arg31: tensor<160x64xf32> {tessera.name = "model.language_model.layers.2.mlp.gate_proj.weight", tessera.role = "weight"}, %arg32: tensor<160x64xf32> {tessera.name = "model.language_model.layers.2.mlp.up_proj.weight", tessera.role = "weight"}, %arg33: tensor<64x160xf32> {tessera.name = "model.language_model.layers.2.mlp.down_proj.weight", tessera.role = "weight"}, %arg34: tensor<64xf32> {tessera.name = "model.language_model.norm.weight", tessera.role = "weight"}, %arg35: tensor<16x64xf32> {tessera.name = "embeddings", tessera.role = "input"}, %arg36: tensor<3x16xi32> {tessera.name = "positions", tessera.role = "input"}, %arg37: tensor<16x16xf32> {tessera.name = "bias", tessera.role = "input"}, %arg38: tensor<i32> {tessera.name = "length", tessera.role = "input"}) -> (tensor<1344xf32>, tensor<3x32x2x32xf32>, tensor<3x32x2x32xf32>) {
    %0 = stablehlo.constant dense<"0x0000803F3A3FC33E63E9143E1B25633D5E3DAD3C8820043CD38A493B86B6993AFF77EA394FD3323920638838620AD0374BAB1E37550772365D97B835E3C80C35"> : tensor<16xf32> loc("rope")
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %2 = stablehlo.slice %arg36 [0:1, 0:16] : (tensor<3x16xi32>) -> tensor<1x16xi32> loc("rope")
    %3 = stablehlo.reshape %2 : (tensor<1x16xi32>) -> tensor<16xi32> loc("rope")
    %4 = stablehlo.convert %3 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %6 = stablehlo.multiply %5, %1 : tensor<16x16xf32> loc("rope")
    %7 = stablehlo.slice %arg36 [1:2, 0:16] : (tensor<3x16xi32>) -> tensor<1x16xi32> loc("rope")
    %8 = stablehlo.reshape %7 : (tensor<1x16xi32>) -> tensor<16xi32> loc("rope")
    %9 = stablehlo.convert %8 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %10 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %11 = stablehlo.multiply %10, %1 : tensor<16x16xf32> loc("rope")
    %12 = stablehlo.slice %arg36 [2:3, 0:16] : (tensor<3x16xi32>) -> tensor<1x16xi32> loc("rope")
    %13 = stablehlo.reshape %12 : (tensor<1x16xi32>) -> tensor<16xi32> loc("rope")
    %14 = stablehlo.convert %13 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %15 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %16 = stablehlo.multiply %15, %1 : tensor<16x16xf32> loc("rope")
    %17 = stablehlo.constant dense<[0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]> : tensor<16xi32> loc("rope")
    %18 = stablehlo.broadcast_in_dim %17, dims = [1] : (tensor<16xi32>) -> tensor<16x16xi32> loc("rope")
    %19 = stablehlo.constant dense<1> : tensor<i32> loc("rope")
    %20 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<i32>) -> tensor<16x16xi32> loc("rope")
    %21 = stablehlo.compare  EQ, %18, %20,  SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1> loc("rope")
    %22 = stablehlo.constant dense<2> : tensor<i32> loc("rope")
    %23 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<i32>) -> tensor<16x16xi32> loc("rope")
    %24 = stablehlo.compare  EQ, %18, %23,  SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1> loc("rope")
    %25 = stablehlo.select %24, %16, %6 : tensor<16x16xi1>, tensor<16x16xf32> loc("rope")
    %26 = stablehlo.select %21, %11, %25 : tensor<16x16xi1>, tensor<16x16xf32> loc("rope")
    %27 = stablehlo.cosine %26 : tensor<16x16xf32> loc("rope")
    %28 = stablehlo.sine %26 : tensor<16x16xf32> loc("rope")
    %29 = stablehlo.composite "tessera.rms_norm" %arg35, %arg1 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %30 = stablehlo.composite "tessera.linear" %29, %arg2 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.0.attn")
    %31 = stablehlo.reshape %30 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %32 = stablehlo.composite "tessera.linear" %29, %arg3 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %33 = stablehlo.reshape %32 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %34 = stablehlo.composite "tessera.linear" %29, %arg4 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %35 = stablehlo.reshape %34 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %36 = stablehlo.composite "tessera.rms_norm" %31, %arg5 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %37 = stablehlo.composite "tessera.rms_norm" %33, %arg6 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %38 = stablehlo.composite "tessera.rope" %36, %27, %28 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %39 = stablehlo.composite "tessera.rope" %37, %27, %28 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %40 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.0.attn")
    %41 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.0.attn")
    %42 = stablehlo.compare  LT, %40, %41,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.0.attn")
    %43 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %44 = stablehlo.broadcast_in_dim %43, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %45 = stablehlo.select %42, %39, %44 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.0.attn")
    %46 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %47 = stablehlo.pad %45, %46, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %48 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.0.attn")
    %49 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.0.attn")
    %50 = stablehlo.compare  LT, %48, %49,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.0.attn")
    %51 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %52 = stablehlo.broadcast_in_dim %51, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %53 = stablehlo.select %50, %35, %52 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.0.attn")
    %54 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %55 = stablehlo.pad %53, %54, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %56 = stablehlo.composite "tessera.attention" %38, %39, %35, %arg37 {composite_attributes = {causal = false, has_bias = true, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %57 = stablehlo.reshape %56 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.0.attn")
    %58 = stablehlo.composite "tessera.linear" %57, %arg7 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %59 = stablehlo.add %arg35, %58 : tensor<16x64xf32> loc("layer.0.attn")
    %60 = stablehlo.composite "tessera.rms_norm" %59, %arg8 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %61 = stablehlo.composite "tessera.gated_mlp" %60, %arg9, %arg10, %arg11 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %62 = stablehlo.add %59, %61 : tensor<16x64xf32> loc("layer.0.mlp")
    %63 = stablehlo.composite "tessera.rms_norm" %62, %arg12 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %64 = stablehlo.composite "tessera.linear" %63, %arg13 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.1.attn")
    %65 = stablehlo.reshape %64 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %66 = stablehlo.composite "tessera.linear" %63, %arg14 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %67 = stablehlo.reshape %66 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %68 = stablehlo.composite "tessera.linear" %63, %arg15 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %69 = stablehlo.reshape %68 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %70 = stablehlo.composite "tessera.rms_norm" %65, %arg16 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %71 = stablehlo.composite "tessera.rms_norm" %67, %arg17 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %72 = stablehlo.composite "tessera.rope" %70, %27, %28 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %73 = stablehlo.composite "tessera.rope" %71, %27, %28 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %74 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.1.attn")
    %75 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.1.attn")
    %76 = stablehlo.compare  LT, %74, %75,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.1.attn")
    %77 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %78 = stablehlo.broadcast_in_dim %77, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %79 = stablehlo.select %76, %73, %78 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.1.attn")
    %80 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %81 = stablehlo.pad %79, %80, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %82 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.1.attn")
    %83 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.1.attn")
    %84 = stablehlo.compare  LT, %82, %83,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.1.attn")
    %85 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %86 = stablehlo.broadcast_in_dim %85, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %87 = stablehlo.select %84, %69, %86 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.1.attn")
    %88 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %89 = stablehlo.pad %87, %88, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %90 = stablehlo.composite "tessera.attention" %72, %73, %69, %arg37 {composite_attributes = {causal = false, has_bias = true, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %91 = stablehlo.reshape %90 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.1.attn")
    %92 = stablehlo.composite "tessera.linear" %91, %arg18 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %93 = stablehlo.add %62, %92 : tensor<16x64xf32> loc("layer.1.attn")
    %94 = stablehlo.composite "tessera.rms_norm" %93, %arg19 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %95 = stablehlo.composite "tessera.gated_mlp" %94, %arg20, %arg21, %arg22 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %96 = stablehlo.add %93, %95 : tensor<16x64xf32> loc("layer.1.mlp")
    %97 = stablehlo.composite "tessera.rms_norm" %96, %arg23 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %98 = stablehlo.composite "tessera.linear" %97, %arg24 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.2.attn")
    %99 = stablehlo.reshape %98 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %100 = stablehlo.composite "tessera.linear" %97, %arg25 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %101 = stablehlo.reshape %100 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %102 = stablehlo.composite "tessera.linear" %97, %arg26 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %103 = stablehlo.reshape %102 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %104 = stablehlo.composite "tessera.rms_norm" %99, %arg27 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %105 = stablehlo.composite "tessera.rms_norm" %101, %arg28 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %106 = stablehlo.composite "tessera.rope" %104, %27, %28 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %107 = stablehlo.composite "tessera.rope" %105, %27, %28 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %108 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.2.attn")
    %109 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.2.attn")
    %110 = stablehlo.compare  LT, %108, %109,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.2.attn")
    %111 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %112 = stablehlo.broadcast_in_dim %111, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %113 = stablehlo.select %110, %107, %112 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.2.attn")
    %114 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %115 = stablehlo.pad %113, %114, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %116 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.2.attn")
    %117 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.2.attn")
    %118 = stablehlo.compare  LT, %116, %117,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.2.attn")
    %119 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %120 = stablehlo.broadcast_in_dim %119, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %121 = stablehlo.select %118, %103, %120 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.2.attn")
    %122 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %123 = stablehlo.pad %121, %122, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %124 = stablehlo.composite "tessera.attention" %106, %107, %103, %arg37 {composite_attributes = {causal = false, has_bias = true, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %125 = stablehlo.reshape %124 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.2.attn")
    %126 = stablehlo.composite "tessera.linear" %125, %arg29 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %127 = stablehlo.add %96, %126 : tensor<16x64xf32> loc("layer.2.attn")
    %128 = stablehlo.composite "tessera.rms_norm" %127, %arg30 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %129 = stablehlo.composite "tessera.gated_mlp" %128, %arg31, %arg32, %arg33 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %130 = stablehlo.add %127, %129 : tensor<16x64xf32> loc("layer.2.mlp")
    %131 = stablehlo.constant dense<1> : tensor<i32> loc("last_token")
    %132 = stablehlo.subtract %arg38, %131 : tensor<i32> loc("last_token")
    %133 = stablehlo.constant dense<0> : tensor<i32> loc("last_token")
    %134 = stablehlo.dynamic_slice %130, %132, %133, sizes = [1, 64] : (tensor<16x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32> loc("last_token")
    %135 = stablehlo.composite "tessera.rms_norm" %134, %arg34 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.3} : (tensor<1x64xf32>, tensor<64xf32>) -> tensor<1x64xf32> loc("lm_head")
    %136 = stablehlo.composite "tessera.linear" %135, %arg0 {decomposition = @tessera.linear.3} : (tensor<1x64xf32>, tensor<1344x64xf32>) -> tensor<1x1344xf32> loc("lm_head")
    %137 = stablehlo.reshape %136 : (tensor<1x1344xf32>) -> tensor<1344xf32> loc("lm_head")
    %138 = stablehlo.reshape %47 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %139 = stablehlo.reshape %81 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %140 = stablehlo.reshape %115 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %141 = stablehlo.concatenate %138, %139, %140, dim = 0 : (tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>) -> tensor<3x32x2x32xf32> loc("kv")
    %142 = stablehlo.reshape %55 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %143 = stablehlo.reshape %89 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %144 = stablehlo.reshape %123 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %145 = stablehlo.concatenate %142, %143, %144, dim = 0 : (tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>) -> tensor<3x32x2x32xf32> loc("kv")
    return %137, %141, %145 : tensor<1344xf32>, tensor<3x32x2x32xf32>, tensor<3x32x2x32xf32>
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
    %8 = stablehlo.constant dense<0x358637BD> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %10 = stablehlo.add %7, %9 : tensor<16x64xf32>
    %11 = stablehlo.rsqrt %10 : tensor<16x64xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<16x64xf32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<16x64xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<16x64xf32>
    return %14 : tensor<16x64xf32>
  }
  func.func private @tessera.linear.0(%arg0: tensor<16x64xf32>, %arg1: tensor<128x64xf32>) -> tensor<16x128xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
  func.func private @tessera.linear.1(%arg0: tensor<16x64xf32>, %arg1: tensor<64x64xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
    return %0 : tensor<16x64xf32>
  }
  func.func private @tessera.rms_norm.1(%arg0: tensor<16x4x32xf32>, %arg1: tensor<32xf32>) -> tensor<16x4x32xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<16x4x32xf32>
    %1 = stablehlo.constant dense<0x42000000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<16x4x32xf32>
    %3 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %4 = "stablehlo.reduce"(%0, %3) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<16x4x32xf32>, tensor<f32>) -> tensor<16x4xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<16x4xf32>) -> tensor<16x4x32xf32>
    %7 = stablehlo.divide %6, %2 : tensor<16x4x32xf32>
    %8 = stablehlo.constant dense<0x358637BD> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<16x4x32xf32>
    %10 = stablehlo.add %7, %9 : tensor<16x4x32xf32>
    %11 = stablehlo.rsqrt %10 : tensor<16x4x32xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<16x4x32xf32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<32xf32>) -> tensor<16x4x32xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<16x4x32xf32>
    return %14 : tensor<16x4x32xf32>
  }
  func.func private @tessera.rms_norm.2(%arg0: tensor<16x2x32xf32>, %arg1: tensor<32xf32>) -> tensor<16x2x32xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<16x2x32xf32>
    %1 = stablehlo.constant dense<0x42000000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32>
    %3 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %4 = "stablehlo.reduce"(%0, %3) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<16x2xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<16x2xf32>) -> tensor<16x2x32xf32>
    %7 = stablehlo.divide %6, %2 : tensor<16x2x32xf32>
    %8 = stablehlo.constant dense<0x358637BD> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32>
    %10 = stablehlo.add %7, %9 : tensor<16x2x32xf32>
    %11 = stablehlo.rsqrt %10 : tensor<16x2x32xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<16x2x32xf32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<32xf32>) -> tensor<16x2x32xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<16x2x32xf32>
    return %14 : tensor<16x2x32xf32>
  }
  func.func private @tessera.rope.0(%arg0: tensor<16x4x32xf32>, %arg1: tensor<16x16xf32>, %arg2: tensor<16x16xf32>) -> tensor<16x4x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<16x16xf32>) -> tensor<16x4x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0, 2] : (tensor<16x16xf32>) -> tensor<16x4x16xf32>
    %2 = stablehlo.slice %arg0 [0:16, 0:4, 0:16] : (tensor<16x4x32xf32>) -> tensor<16x4x16xf32>
    %3 = stablehlo.slice %arg0 [0:16, 0:4, 16:32] : (tensor<16x4x32xf32>) -> tensor<16x4x16xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<16x4x16xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<16x4x16xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<16x4x16xf32>
    %7 = stablehlo.multiply %2, %1 : tensor<16x4x16xf32>
    %8 = stablehlo.multiply %3, %0 : tensor<16x4x16xf32>
    %9 = stablehlo.add %8, %7 : tensor<16x4x16xf32>
    %10 = stablehlo.concatenate %6, %9, dim = 2 : (tensor<16x4x16xf32>, tensor<16x4x16xf32>) -> tensor<16x4x32xf32>
    return %10 : tensor<16x4x32xf32>
  }
  func.func private @tessera.rope.1(%arg0: tensor<16x2x32xf32>, %arg1: tensor<16x16xf32>, %arg2: tensor<16x16xf32>) -> tensor<16x2x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<16x16xf32>) -> tensor<16x2x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0, 2] : (tensor<16x16xf32>) -> tensor<16x2x16xf32>
    %2 = stablehlo.slice %arg0 [0:16, 0:2, 0:16] : (tensor<16x2x32xf32>) -> tensor<16x2x16xf32>
    %3 = stablehlo.slice %arg0 [0:16, 0:2, 16:32] : (tensor<16x2x32xf32>) -> tensor<16x2x16xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<16x2x16xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<16x2x16xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<16x2x16xf32>
    %7 = stablehlo.multiply %2, %1 : tensor<16x2x16xf32>
    %8 = stablehlo.multiply %3, %0 : tensor<16x2x16xf32>
    %9 = stablehlo.add %8, %7 : tensor<16x2x16xf32>
    %10 = stablehlo.concatenate %6, %9, dim = 2 : (tensor<16x2x16xf32>, tensor<16x2x16xf32>) -> tensor<16x2x32xf32>
    return %10 : tensor<16x2x32xf32>
  }
  func.func private @tessera.attention.0(%arg0: tensor<16x4x32xf32>, %arg1: tensor<16x2x32xf32>, %arg2: tensor<16x2x32xf32>, %arg3: tensor<16x16xf32>) -> tensor<16x4x32xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<16x4x32xf32>) -> tensor<16x2x2x32xf32>
    %1 = stablehlo.dot_general %0, %arg1, batching_dims = [1] x [1], contracting_dims = [3] x [2] : (tensor<16x2x2x32xf32>, tensor<16x2x32xf32>) -> tensor<2x16x2x16xf32>
    %2 = stablehlo.constant dense<0x3E3504F3> : tensor<f32>
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
    %18 = stablehlo.dot_general %17, %arg2, batching_dims = [0] x [1], contracting_dims = [3] x [0] : (tensor<2x16x2x16xf32>, tensor<16x2x32xf32>) -> tensor<2x16x2x32xf32>
    %19 = stablehlo.transpose %18, dims = [1, 0, 2, 3] : (tensor<2x16x2x32xf32>) -> tensor<16x2x2x32xf32>
    %20 = stablehlo.reshape %19 : (tensor<16x2x2x32xf32>) -> tensor<16x4x32xf32>
    return %20 : tensor<16x4x32xf32>
  }
  func.func private @tessera.linear.2(%arg0: tensor<16x128xf32>, %arg1: tensor<64x128xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32>
    return %0 : tensor<16x64xf32>
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
  func.func private @tessera.rms_norm.3(%arg0: tensor<1x64xf32>, %arg1: tensor<64xf32>) -> tensor<1x64xf32> {
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
    %8 = stablehlo.constant dense<0x358637BD> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<1x64xf32>
    %10 = stablehlo.add %7, %9 : tensor<1x64xf32>
    %11 = stablehlo.rsqrt %10 : tensor<1x64xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<1x64xf32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<1x64xf32>
    return %14 : tensor<1x64xf32>
  }
  func.func private @tessera.linear.3(%arg0: tensor<1x64xf32>, %arg1: tensor<1344x64xf32>) -> tensor<1x1344xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<1x64xf32>, tensor<1344x64xf32>) -> tensor<1x1344xf32>
    return %0 : tensor<1x1344xf32>
  }
}
