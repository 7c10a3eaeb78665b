module @prefill_main_c32 {
  func.func public @main(%arg0: tensor<1344x64xf32> {tessera.name = "model.language_model.embed_tokens.weight", tessera.role = "weight"}, %arg1: tensor<64xf32> {tessera.name = "model.language_model.layers.0.input_layernorm.weight", tessera.role = "weight"}, %arg2: tensor<128x64xf32> {tessera.name = "model.language_model.layers.0.self_attn.q_proj.weight", tessera.role = "weight"}, %arg3: tensor<64x64xf32> {tessera.name = "model.language_model.layers.0.self_attn.k_proj.weight", tessera.role = "weight"}, %arg4: tensor<64x64xf32> {tessera.name = "model.language_model.layers.0.self_attn.v_proj.weight", tessera.role = "weight"}, %arg5: tensor<32xf32> {tessera.name = "model.language_model.layers.0.self_attn.q_norm.weight", tessera.role = "weight"}, %arg6: tensor<32xf32> {tessera.name = "model.language_model.layers.0.self_attn.k_norm.weight", tessera.role = "weight"}, %arg7: tensor<64x128xf32> {tessera.name = "model.language_model.layers.0.self_attn.o_proj.weight", tessera.role = "weight"}, %arg8: tensor<64xf32> {tessera.name = "model.language_model.layers.0.post_attention_layernorm.weight", tessera.role = "weight"}, %arg9: tensor<160x64xf32> {tessera.name = "model.language_model.layers.0.mlp.gate_proj.weight", tessera.role = "weight"}, %arg10: tensor<160x64xf32> {tessera.name = "model.language_model.layers.0.mlp.up_proj.weight", tessera.role = "weight"}, %arg11: tensor<64x160xf32> {tessera.name = "model.language_model.layers.0.mlp.down_proj.weight", tessera.role = "weight"}, %arg12: tensor<64xf32> {tessera.name = "model.language_model.layers.1.input_layernorm.weight", tessera.role = "weight"}, %arg13: tensor<128x64xf32> {tessera.name = "model.language_model.layers.1.self_attn.q_proj.weight", tessera.role = "weight"}, %arg14: tensor<64x64xf32> {tessera.name = "model.language_model.layers.1.self_attn.k_proj.weight", tessera.role = "weight"}, %arg15: tensor<64x64xf32> {tessera.name = "model.language_model.layers.1.self_attn.v_proj.weight", tessera.role = "weight"}, %arg16: tensor<32xf32> {tessera.name = "model.language_model.layers.1.self_attn.q_norm.weight", tessera.role = "weight"}, %arg17: tensor<32xf32> {tessera.name = "model.language_model.layers.1.self_attn.k_norm.weight", tessera.role = "weight"}, %arg18: tensor<64x128xf32> {tessera.name = "model.language_model.layers.1.self_attn.o_proj.weight", tessera.role = "weight"}, %arg19: tensor<64xf32> {tessera.name = "model.language_model.layers.1.post_attention_layernorm.weight", tessera.role = "weight"}, %arg20: tensor<160x64xf32> {tessera.name = "model.language_model.layers.1.mlp.gate_proj.weight", tessera.role = "weight"}, %arg21: tensor<160x64xf32> {tessera.name = "model.language_model.layers.1.mlp.up_proj.weight", tessera.role = "weight"}, %arg22: tensor<64x160xf32> {tessera.name = "model.language_model.layers.1.mlp.down_proj.weight", tessera.role = "weight"}, %arg23: tensor<64xf32> {tessera.name = "model.language_model.layers.2.input_layernorm.weight", tessera.role = "weight"}, %arg24: tensor<128x64xf32> {tessera.name = "model.language_model.layers.2.self_attn.q_proj.weight", tessera.role = "weight"}, %arg25: tensor<64x64xf32> {tessera.name = "model.language_model.layers.2.self_attn.k_proj.weight", tessera.role = "weight"}, %arg26: tensor<64x64xf32> {tessera.name = "model.language_model.layers.2.self_attn.v_proj.weight", tessera.role = "weight"}, %arg27: tensor<32xf32> {tessera.name = "model.language_model.layers.2.self_attn.q_norm.weight", tessera.role = "weight"}, %arg28: tensor<32xf32> {tessera.name = "model.language_model.layers.2.self_attn.k_norm.weight", tessera.role = "weight"}, %arg29: tensor<64x128xf32> {tessera.name = "model.language_model.layers.2.self_attn.o_proj.weight", tessera.role = "weight"}, %arg30: tensor<64xf32> {tessera.name = "model.language_model.layers.2.post_attention_layernorm.weight", tessera.role = "weight"}, %arg31: tensor<160x64xf32> {tessera.name = "model.language_model.layers.2.mlp.gate_proj.weight", tessera.role = "weight"}, %arg32: tensor<160x64xf32> {tessera.name = "model.language_model.layers.2.mlp.up_proj.weight", tessera.role = "weight"}, %arg33: tensor<64x160xf32> {tessera.name = "model.language_model.layers.2.mlp.down_proj.weight", tessera.role = "weight"}, %arg34: tensor<64xf32> {tessera.name = "model.language_model.norm.weight", tessera.role = "weight"}, %arg35: tensor<16xi32> {tessera.name = "tokens", tessera.role = "input"}, %arg36: tensor<i32> {tessera.name = "length", tessera.role = "input"}) -> (tensor<1344xf32>, tensor<3x32x2x32xf32>, tensor<3x32x2x32xf32>) {
    %0 = stablehlo.iota dim = 1 : tensor<3x16xi32> loc("inputs")
    %1 = stablehlo.composite "tessera.embedding" %arg0, %arg35 {decomposition = @tessera.embedding.0} : (tensor<1344x64xf32>, tensor<16xi32>) -> tensor<16x64xf32> loc("embed_tokens")
    %2 = stablehlo.constant dense<"0x0000803F3A3FC33E63E9143E1B25633D5E3DAD3C8820043CD38A493B86B6993AFF77EA394FD3323920638838620AD0374BAB1E37550772365D97B835E3C80C35"> : tensor<16xf32> loc("rope")
    %3 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %4 = stablehlo.slice %0 [0:1, 0:16] : (tensor<3x16xi32>) -> tensor<1x16xi32> loc("rope")
    %5 = stablehlo.reshape %4 : (tensor<1x16xi32>) -> tensor<16xi32> loc("rope")
    %6 = stablehlo.convert %5 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %8 = stablehlo.multiply %7, %3 : tensor<16x16xf32> loc("rope")
    %9 = stablehlo.slice %0 [1:2, 0:16] : (tensor<3x16xi32>) -> tensor<1x16xi32> loc("rope")
    %10 = stablehlo.reshape %9 : (tensor<1x16xi32>) -> tensor<16xi32> loc("rope")
    %11 = stablehlo.convert %10 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %13 = stablehlo.multiply %12, %3 : tensor<16x16xf32> loc("rope")
    %14 = stablehlo.slice %0 [2:3, 0:16] : (tensor<3x16xi32>) -> tensor<1x16xi32> loc("rope")
    %15 = stablehlo.reshape %14 : (tensor<1x16xi32>) -> tensor<16xi32> loc("rope")
    %16 = stablehlo.convert %15 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %17 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %18 = stablehlo.multiply %17, %3 : tensor<16x16xf32> loc("rope")
    %19 = stablehlo.constant dense<[0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]> : tensor<16xi32> loc("rope")
    %20 = stablehlo.broadcast_in_dim %19, dims = [1] : (tensor<16xi32>) -> tensor<16x16xi32> loc("rope")
    %21 = stablehlo.constant dense<1> : tensor<i32> loc("rope")
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<i32>) -> tensor<16x16xi32> loc("rope")
    %23 = stablehlo.compare  EQ, %20, %22,  SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1> loc("rope")
    %24 = stablehlo.constant dense<2> : tensor<i32> loc("rope")
    %25 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<i32>) -> tensor<16x16xi32> loc("rope")
    %26 = stablehlo.compare  EQ, %20, %25,  SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1> loc("rope")
    %27 = stablehlo.select %26, %18, %8 : tensor<16x16xi1>, tensor<16x16xf32> loc("rope")
    %28 = stablehlo.select %23, %13, %27 : tensor<16x16xi1>, tensor<16x16xf32> loc("rope")
    %29 = stablehlo.cosine %28 : tensor<16x16xf32> loc("rope")
    %30 = stablehlo.sine %28 : tensor<16x16xf32> loc("rope")
    %31 = stablehlo.composite "tessera.rms_norm" %1, %arg1 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %32 = stablehlo.composite "tessera.linear" %31, %arg2 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.0.attn")
    %33 = stablehlo.reshape %32 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %34 = stablehlo.composite "tessera.linear" %31, %arg3 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %35 = stablehlo.reshape %34 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %36 = stablehlo.composite "tessera.linear" %31, %arg4 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %37 = stablehlo.reshape %36 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %38 = stablehlo.composite "tessera.rms_norm" %33, %arg5 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %39 = stablehlo.composite "tessera.rms_norm" %35, %arg6 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %40 = stablehlo.composite "tessera.rope" %38, %29, %30 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %41 = stablehlo.composite "tessera.rope" %39, %29, %30 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %42 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.0.attn")
    %43 = stablehlo.broadcast_in_dim %arg36, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.0.attn")
    %44 = stablehlo.compare  LT, %42, %43,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.0.attn")
    %45 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %46 = stablehlo.broadcast_in_dim %45, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %47 = stablehlo.select %44, %41, %46 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.0.attn")
    %48 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %49 = stablehlo.pad %47, %48, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %50 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.0.attn")
    %51 = stablehlo.broadcast_in_dim %arg36, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.0.attn")
    %52 = stablehlo.compare  LT, %50, %51,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.0.attn")
    %53 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %54 = stablehlo.broadcast_in_dim %53, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %55 = stablehlo.select %52, %37, %54 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.0.attn")
    %56 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %57 = stablehlo.pad %55, %56, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %58 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %59 = stablehlo.composite "tessera.attention" %40, %41, %37, %58 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<i32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %60 = stablehlo.reshape %59 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.0.attn")
    %61 = stablehlo.composite "tessera.linear" %60, %arg7 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %62 = stablehlo.add %1, %61 : tensor<16x64xf32> loc("layer.0.attn")
    %63 = stablehlo.composite "tessera.rms_norm" %62, %arg8 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %64 = stablehlo.composite "tessera.gated_mlp" %63, %arg9, %arg10, %arg11 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %65 = stablehlo.add %62, %64 : tensor<16x64xf32> loc("layer.0.mlp")
    %66 = stablehlo.composite "tessera.rms_norm" %65, %arg12 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %67 = stablehlo.composite "tessera.linear" %66, %arg13 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.1.attn")
    %68 = stablehlo.reshape %67 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %69 = stablehlo.composite "tessera.linear" %66, %arg14 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %70 = stablehlo.reshape %69 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %71 = stablehlo.composite "tessera.linear" %66, %arg15 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %72 = stablehlo.reshape %71 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %73 = stablehlo.composite "tessera.rms_norm" %68, %arg16 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %74 = stablehlo.composite "tessera.rms_norm" %70, %arg17 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %75 = stablehlo.composite "tessera.rope" %73, %29, %30 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %76 = stablehlo.composite "tessera.rope" %74, %29, %30 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %77 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.1.attn")
    %78 = stablehlo.broadcast_in_dim %arg36, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.1.attn")
    %79 = stablehlo.compare  LT, %77, %78,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.1.attn")
    %80 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %81 = stablehlo.broadcast_in_dim %80, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %82 = stablehlo.select %79, %76, %81 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.1.attn")
    %83 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %84 = stablehlo.pad %82, %83, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %85 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.1.attn")
    %86 = stablehlo.broadcast_in_dim %arg36, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.1.attn")
    %87 = stablehlo.compare  LT, %85, %86,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.1.attn")
    %88 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %89 = stablehlo.broadcast_in_dim %88, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %90 = stablehlo.select %87, %72, %89 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.1.attn")
    %91 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %92 = stablehlo.pad %90, %91, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %93 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %94 = stablehlo.composite "tessera.attention" %75, %76, %72, %93 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<i32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %95 = stablehlo.reshape %94 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.1.attn")
    %96 = stablehlo.composite "tessera.linear" %95, %arg18 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %97 = stablehlo.add %65, %96 : tensor<16x64xf32> loc("layer.1.attn")
    %98 = stablehlo.composite "tessera.rms_norm" %97, %arg19 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %99 = stablehlo.composite "tessera.gated_mlp" %98, %arg20, %arg21, %arg22 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %100 = stablehlo.add %97, %99 : tensor<16x64xf32> loc("layer.1.mlp")
    %101 = stablehlo.composite "tessera.rms_norm" %100, %arg23 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %102 = stablehlo.composite "tessera.linear" %101, %arg24 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.2.attn")
    %103 = stablehlo.reshape %102 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %104 = stablehlo.composite "tessera.linear" %101, %arg25 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %105 = stablehlo.reshape %104 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %106 = stablehlo.composite "tessera.linear" %101, %arg26 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %107 = stablehlo.reshape %106 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %108 = stablehlo.composite "tessera.rms_norm" %103, %arg27 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %109 = stablehlo.composite "tessera.rms_norm" %105, %arg28 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %110 = stablehlo.composite "tessera.rope" %108, %29, %30 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %111 = stablehlo.composite "tessera.rope" %109, %29, %30 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %112 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.2.attn")
    %113 = stablehlo.broadcast_in_dim %arg36, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.2.attn")
    %114 = stablehlo.compare  LT, %112, %113,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.2.attn")
    %115 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %116 = stablehlo.broadcast_in_dim %115, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %117 = stablehlo.select %114, %111, %116 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.2.attn")
    %118 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %119 = stablehlo.pad %117, %118, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %120 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.2.attn")
    %121 = stablehlo.broadcast_in_dim %arg36, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.2.attn")
    %122 = stablehlo.compare  LT, %120, %121,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.2.attn")
    %123 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %124 = stablehlo.broadcast_in_dim %123, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %125 = stablehlo.select %122, %107, %124 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.2.attn")
    %126 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %127 = stablehlo.pad %125, %126, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %128 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %129 = stablehlo.composite "tessera.attention" %110, %111, %107, %128 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<i32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %130 = stablehlo.reshape %129 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.2.attn")
    %131 = stablehlo.composite "tessera.linear" %130, %arg29 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %132 = stablehlo.add %100, %131 : tensor<16x64xf32> loc("layer.2.attn")
    %133 = stablehlo.composite "tessera.rms_norm" %132, %arg30 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %134 = stablehlo.composite "tessera.gated_mlp" %133, %arg31, %arg32, %arg33 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %135 = stablehlo.add %132, %134 : tensor<16x64xf32> loc("layer.2.mlp")
    %136 = stablehlo.constant dense<1> : tensor<i32> loc("last_token")
    %137 = stablehlo.subtract %arg36, %136 : tensor<i32> loc("last_token")
    %138 = stablehlo.constant dense<0> : tensor<i32> loc("last_token")
    %139 = stablehlo.dynamic_slice %135, %137, %138, sizes = [1, 64] : (tensor<16x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32> loc("last_token")
    %140 = stablehlo.composite "tessera.rms_norm" %139, %arg34 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.3} : (tensor<1x64xf32>, tensor<64xf32>) -> tensor<1x64xf32> loc("lm_head")
    %141 = stablehlo.composite "tessera.linear" %140, %arg0 {decomposition = @tessera.linear.3} : (tensor<1x64xf32>, tensor<1344x64xf32>) -> tensor<1x1344xf32> loc("lm_head")
    %142 = stablehlo.reshape %141 : (tensor<1x1344xf32>) -> tensor<1344xf32> loc("lm_head")
    %143 = stablehlo.reshape %49 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %144 = stablehlo.reshape %84 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %145 = stablehlo.reshape %119 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %146 = stablehlo.concatenate %143, %144, %145, dim = 0 : (tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>) -> tensor<3x32x2x32xf32> loc("kv")
    %147 = stablehlo.reshape %57 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %148 = stablehlo.reshape %92 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %149 = stablehlo.reshape %127 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %150 = stablehlo.concatenate %147, %148, %149, dim = 0 : (tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>) -> tensor<3x32x2x32xf32> loc("kv")
    return %142, %146, %150 : tensor<1344xf32>, tensor<3x32x2x32xf32>, tensor<3x32x2x32xf32>
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
  func.func private @tessera.attention.0(%arg0: tensor<16x4x32xf32>, %arg1: tensor<16x2x32xf32>, %arg2: tensor<16x2x32xf32>, %arg3: tensor<i32>) -> tensor<16x4x32xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<16x4x32xf32>) -> tensor<16x2x2x32xf32>
    %1 = stablehlo.dot_general %0, %arg1, batching_dims = [1] x [1], contracting_dims = [3] x [2] : (tensor<16x2x2x32xf32>, tensor<16x2x32xf32>) -> tensor<2x16x2x16xf32>
    %2 = stablehlo.constant dense<0x3E3504F3> : tensor<f32>
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
    %25 = stablehlo.dot_general %24, %arg2, batching_dims = [0] x [1], contracting_dims = [3] x [0] : (tensor<2x16x2x16xf32>, tensor<16x2x32xf32>) -> tensor<2x16x2x32xf32>
    %26 = stablehlo.transpose %25, dims = [1, 0, 2, 3] : (tensor<2x16x2x32xf32>) -> tensor<16x2x2x32xf32>
    %27 = stablehlo.reshape %26 : (tensor<16x2x2x32xf32>) -> tensor<16x4x32xf32>
    return %27 : tensor<16x4x32xf32>
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
