module @prefill_embeddings_deepstack_main_c32 {
  func.func public @main(%arg0: tensor<1344x64xf32> {tessera.name = "model.language_model.embed_tokens.weight", tessera.role = "weight"}, %arg1: tensor<64xf32> {tessera.name = "model.language_model.layers.0.input_layernorm.weight", tessera.role = "weight"}, %arg2: tensor<128x64xf32> {tessera.name = "model.language_model.layers.0.self_attn.q_proj.weight", tessera.role = "weight"}, %arg3: tensor<64x64xf32> {tessera.name = "model.language_model.layers.0.self_attn.k_proj.weight", tessera.role = "weight"}, %arg4: tensor<64x64xf32> {tessera.name = "model.language_model.layers.0.self_attn.v_proj.weight", tessera.role = "weight"}, %arg5: tensor<32xf32> {tessera.name = "model.language_model.layers.0.self_attn.q_norm.weight", tessera.role = "weight"}, %arg6: tensor<32xf32> {tessera.name = "model.language_model.layers.0.self_attn.k_norm.weight", tessera.role = "weight"}, %arg7: tensor<64x128xf32> {tessera.name = "model.language_model.layers.0.self_attn.o_proj.weight", tessera.role = "weight"}, %arg8: tensor<64xf32> {tessera.name = "model.language_model.layers.0.post_attention_layernorm.weight", tessera.role = "weight"}, %arg9: tensor<4x64xf32> {tessera.name = "model.language_model.layers.0.mlp.gate.weight", tessera.role = "weight"}, %arg10: tensor<4x64x96xf32> {tessera.name = "model.language_model.layers.0.mlp.experts.gate_up_proj", tessera.role = "weight"}, %arg11: tensor<4x48x64xf32> {tessera.name = "model.language_model.layers.0.mlp.experts.down_proj", tessera.role = "weight"}, %arg12: tensor<64xf32> {tessera.name = "model.language_model.layers.1.input_layernorm.weight", tessera.role = "weight"}, %arg13: tensor<128x64xf32> {tessera.name = "model.language_model.layers.1.self_attn.q_proj.weight", tessera.role = "weight"}, %arg14: tensor<64x64xf32> {tessera.name = "model.language_model.layers.1.self_attn.k_proj.weight", tessera.role = "weight"}, %arg15: tensor<64x64xf32> {tessera.name = "model.language_model.layers.1.self_attn.v_proj.weight", tessera.role = "weight"}, %arg16: tensor<32xf32> {tessera.name = "model.language_model.layers.1.self_attn.q_norm.weight", tessera.role = "weight"}, %arg17: tensor<32xf32> {tessera.name = "model.language_model.layers.1.self_attn.k_norm.weight", tessera.role = "weight"}, %arg18: tensor<64x128xf32> {tessera.name = "model.language_model.layers.1.self_attn.o_proj.weight", tessera.role = "weight"}, %arg19: tensor<64xf32> {tessera.name = "model.language_model.layers.1.post_attention_layernorm.weight", tessera.role = "weight"}, %arg20: tensor<4x64xf32> {tessera.name = "model.language_model.layers.1.mlp.gate.weight", tessera.role = "weight"}, %arg21: tensor<4x64x96xf32> {tessera.name = "model.language_model.layers.1.mlp.experts.gate_up_proj", tessera.role = "weight"}, %arg22: tensor<4x48x64xf32> {tessera.name = "model.language_model.layers.1.mlp.experts.down_proj", tessera.role = "weight"}, %arg23: tensor<64xf32> {tessera.name = "model.language_model.layers.2.input_layernorm.weight", tessera.role = "weight"}, %arg24: tensor<128x64xf32> {tessera.name = "model.language_model.layers.2.self_attn.q_proj.weight", tessera.role = "weight"}, %arg25: tensor<64x64xf32> {tessera.name = "model.language_model.layers.2.self_attn.k_proj.weight", tessera.role = "weight"}, %arg26: tensor<64x64xf32> {tessera.name = "model.language_model.layers.2.self_attn.v_proj.weight", tessera.role = "weight"}, %arg27: tensor<32xf32> {tessera.name = "model.language_model.layers.2.self_attn.q_norm.weight", tessera.role = "weight"}, %arg28: tensor<32xf32> {tessera.name = "model.language_model.layers.2.self_attn.k_norm.weight", tessera.role = "weight"}, %arg29: tensor<64x128xf32> {tessera.name = "model.language_model.layers.2.self_attn.o_proj.weight", tessera.role = "weight"}, %arg30: tensor<64xf32> {tessera.name = "model.language_model.layers.2.post_attention_layernorm.weight", tessera.role = "weight"}, %arg31: tensor<4x64xf32> {tessera.name = "model.language_model.layers.2.mlp.gate.weight", tessera.role = "weight"}, %arg32: tensor<4x64x96xf32> {tessera.name = "model.language_model.layers.2.mlp.experts.gate_up_proj", tessera.role = "weight"}, %arg33: tensor<4x48x64xf32> {tessera.name = "model.language_model.layers.2.mlp.experts.down_proj", tessera.role = "weight"}, %arg34: tensor<64xf32> {tessera.name = "model.language_model.norm.weight", tessera.role = "weight"}, %arg35: tensor<16x64xf32> {tessera.name = "embeddings", tessera.role = "input"}, %arg36: tensor<3x16xi32> {tessera.name = "positions", tessera.role = "input"}, %arg37: tensor<16x16xf32> {tessera.name = "bias", tessera.role = "input"}, %arg38: tensor<i32> {tessera.name = "length", tessera.role = "input"}, %arg39: tensor<16xi32> {tessera.name = "visual_positions", tessera.role = "input"}, %arg40: tensor<2x16x64xf32> {tessera.name = "layer_features", tessera.role = "input"}, %arg41: tensor<i32> {tessera.name = "visual_count", tessera.role = "input"}) -> (tensor<1344xf32>, tensor<3x32x2x32xf32>, tensor<3x32x2x32xf32>) {
    %0 = stablehlo.iota dim = 1 : tensor<2x16x64xi32> loc("inputs")
    %1 = stablehlo.broadcast_in_dim %arg41, dims = [] : (tensor<i32>) -> tensor<2x16x64xi32> loc("inputs")
    %2 = stablehlo.compare  LT, %0, %1,  SIGNED : (tensor<2x16x64xi32>, tensor<2x16x64xi32>) -> tensor<2x16x64xi1> loc("inputs")
    %3 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("inputs")
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<2x16x64xf32> loc("inputs")
    %5 = stablehlo.select %2, %arg40, %4 : tensor<2x16x64xi1>, tensor<2x16x64xf32> loc("inputs")
    %6 = stablehlo.constant dense<"0x0000803F3A3FC33E63E9143E1B25633D5E3DAD3C8820043CD38A493B86B6993AFF77EA394FD3323920638838620AD0374BAB1E37550772365D97B835E3C80C35"> : tensor<16xf32> loc("rope")
    %7 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %8 = stablehlo.slice %arg36 [0:1, 0:16] : (tensor<3x16xi32>) -> tensor<1x16xi32> loc("rope")
    %9 = stablehlo.reshape %8 : (tensor<1x16xi32>) -> tensor<16xi32> loc("rope")
    %10 = stablehlo.convert %9 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %12 = stablehlo.multiply %11, %7 : tensor<16x16xf32> loc("rope")
    %13 = stablehlo.slice %arg36 [1:2, 0:16] : (tensor<3x16xi32>) -> tensor<1x16xi32> loc("rope")
    %14 = stablehlo.reshape %13 : (tensor<1x16xi32>) -> tensor<16xi32> loc("rope")
    %15 = stablehlo.convert %14 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %16 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %17 = stablehlo.multiply %16, %7 : tensor<16x16xf32> loc("rope")
    %18 = stablehlo.slice %arg36 [2:3, 0:16] : (tensor<3x16xi32>) -> tensor<1x16xi32> loc("rope")
    %19 = stablehlo.reshape %18 : (tensor<1x16xi32>) -> tensor<16xi32> loc("rope")
    %20 = stablehlo.convert %19 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %21 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %22 = stablehlo.multiply %21, %7 : tensor<16x16xf32> loc("rope")
    %23 = stablehlo.constant dense<[0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]> : tensor<16xi32> loc("rope")
    %24 = stablehlo.broadcast_in_dim %23, dims = [1] : (tensor<16xi32>) -> tensor<16x16xi32> loc("rope")
    %25 = stablehlo.constant dense<1> : tensor<i32> loc("rope")
    %26 = stablehlo.broadcast_in_dim %25, dims = [] : (tensor<i32>) -> tensor<16x16xi32> loc("rope")
    %27 = stablehlo.compare  EQ, %24, %26,  SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1> loc("rope")
    %28 = stablehlo.constant dense<2> : tensor<i32> loc("rope")
    %29 = stablehlo.broadcast_in_dim %28, dims = [] : (tensor<i32>) -> tensor<16x16xi32> loc("rope")
    %30 = stablehlo.compare  EQ, %24, %29,  SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1> loc("rope")
    %31 = stablehlo.select %30, %22, %12 : tensor<16x16xi1>, tensor<16x16xf32> loc("rope")
    %32 = stablehlo.select %27, %17, %31 : tensor<16x16xi1>, tensor<16x16xf32> loc("rope")
    %33 = stablehlo.cosine %32 : tensor<16x16xf32> loc("rope")
    %34 = stablehlo.sine %32 : tensor<16x16xf32> loc("rope")
    %35 = stablehlo.composite "tessera.rms_norm" %arg35, %arg1 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %36 = stablehlo.composite "tessera.linear" %35, %arg2 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.0.attn")
    %37 = stablehlo.reshape %36 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %38 = stablehlo.composite "tessera.linear" %35, %arg3 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %39 = stablehlo.reshape %38 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %40 = stablehlo.composite "tessera.linear" %35, %arg4 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %41 = stablehlo.reshape %40 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %42 = stablehlo.composite "tessera.rms_norm" %37, %arg5 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %43 = stablehlo.composite "tessera.rms_norm" %39, %arg6 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %44 = stablehlo.composite "tessera.rope" %42, %33, %34 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %45 = stablehlo.composite "tessera.rope" %43, %33, %34 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %46 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.0.attn")
    %47 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.0.attn")
    %48 = stablehlo.compare  LT, %46, %47,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.0.attn")
    %49 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %50 = stablehlo.broadcast_in_dim %49, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %51 = stablehlo.select %48, %45, %50 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.0.attn")
    %52 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %53 = stablehlo.pad %51, %52, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %54 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.0.attn")
    %55 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.0.attn")
    %56 = stablehlo.compare  LT, %54, %55,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.0.attn")
    %57 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %58 = stablehlo.broadcast_in_dim %57, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %59 = stablehlo.select %56, %41, %58 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.0.attn")
    %60 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %61 = stablehlo.pad %59, %60, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %62 = stablehlo.composite "tessera.attention" %44, %45, %41, %arg37 {composite_attributes = {causal = false, has_bias = true, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %63 = stablehlo.reshape %62 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.0.attn")
    %64 = stablehlo.composite "tessera.linear" %63, %arg7 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %65 = stablehlo.add %arg35, %64 : tensor<16x64xf32> loc("layer.0.attn")
    %66 = stablehlo.composite "tessera.rms_norm" %65, %arg8 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %67 = stablehlo.composite "tessera.moe_mlp" %66, %arg9, %arg10, %arg11 {composite_attributes = {activation = "silu", normalize = true, top_k = 2 : i64}, decomposition = @tessera.moe_mlp.0} : (tensor<16x64xf32>, tensor<4x64xf32>, tensor<4x64x96xf32>, tensor<4x48x64xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %68 = stablehlo.add %65, %67 : tensor<16x64xf32> loc("layer.0.mlp")
    %69 = stablehlo.slice %5 [0:1, 0:16, 0:64] : (tensor<2x16x64xf32>) -> tensor<1x16x64xf32> loc("layer.0.deepstack")
    %70 = stablehlo.reshape %69 : (tensor<1x16x64xf32>) -> tensor<16x64xf32> loc("layer.0.deepstack")
    %71 = "stablehlo.scatter"(%68, %arg39, %70) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg42: tensor<f32>, %arg43: tensor<f32>):
      %72 = stablehlo.add %arg42, %arg43 : tensor<f32>
      stablehlo.return %72 : tensor<f32>
    }) : (tensor<16x64xf32>, tensor<16xi32>, tensor<16x64xf32>) -> tensor<16x64xf32> loc("layer.0.deepstack")
    %73 = stablehlo.composite "tessera.rms_norm" %71, %arg12 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %74 = stablehlo.composite "tessera.linear" %73, %arg13 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.1.attn")
    %75 = stablehlo.reshape %74 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %76 = stablehlo.composite "tessera.linear" %73, %arg14 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %77 = stablehlo.reshape %76 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %78 = stablehlo.composite "tessera.linear" %73, %arg15 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %79 = stablehlo.reshape %78 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %80 = stablehlo.composite "tessera.rms_norm" %75, %arg16 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %81 = stablehlo.composite "tessera.rms_norm" %77, %arg17 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %82 = stablehlo.composite "tessera.rope" %80, %33, %34 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %83 = stablehlo.composite "tessera.rope" %81, %33, %34 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %84 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.1.attn")
    %85 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.1.attn")
    %86 = stablehlo.compare  LT, %84, %85,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.1.attn")
    %87 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %88 = stablehlo.broadcast_in_dim %87, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %89 = stablehlo.select %86, %83, %88 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.1.attn")
    %90 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %91 = stablehlo.pad %89, %90, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %92 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.1.attn")
    %93 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.1.attn")
    %94 = stablehlo.compare  LT, %92, %93,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.1.attn")
    %95 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %96 = stablehlo.broadcast_in_dim %95, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %97 = stablehlo.select %94, %79, %96 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.1.attn")
    %98 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %99 = stablehlo.pad %97, %98, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %100 = stablehlo.composite "tessera.attention" %82, %83, %79, %arg37 {composite_attributes = {causal = false, has_bias = true, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %101 = stablehlo.reshape %100 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.1.attn")
    %102 = stablehlo.composite "tessera.linear" %101, %arg18 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %103 = stablehlo.add %71, %102 : tensor<16x64xf32> loc("layer.1.attn")
    %104 = stablehlo.composite "tessera.rms_norm" %103, %arg19 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %105 = stablehlo.composite "tessera.moe_mlp" %104, %arg20, %arg21, %arg22 {composite_attributes = {activation = "silu", normalize = true, top_k = 2 : i64}, decomposition = @tessera.moe_mlp.0} : (tensor<16x64xf32>, tensor<4x64xf32>, tensor<4x64x96xf32>, tensor<4x48x64xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %106 = stablehlo.add %103, %105 : tensor<16x64xf32> loc("layer.1.mlp")
    %107 = stablehlo.slice %5 [1:2, 0:16, 0:64] : (tensor<2x16x64xf32>) -> tensor<1x16x64xf32> loc("layer.1.deepstack")
    %108 = stablehlo.reshape %107 : (tensor<1x16x64xf32>) -> tensor<16x64xf32> loc("layer.1.deepstack")
    %109 = "stablehlo.scatter"(%106, %arg39, %108) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg44: tensor<f32>, %arg45: tensor<f32>):
      %110 = stablehlo.add %arg44, %arg45 : tensor<f32>
      stablehlo.return %110 : tensor<f32>
    }) : (tensor<16x64xf32>, tensor<16xi32>, tensor<16x64xf32>) -> tensor<16x64xf32> loc("layer.1.deepstack")
    %111 = stablehlo.composite "tessera.rms_norm" %109, %arg23 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %112 = stablehlo.composite "tessera.linear" %111, %arg24 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.2.attn")
    %113 = stablehlo.reshape %112 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %114 = stablehlo.composite "tessera.linear" %111, %arg25 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %115 = stablehlo.reshape %114 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %116 = stablehlo.composite "tessera.linear" %111, %arg26 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %117 = stablehlo.reshape %116 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %118 = stablehlo.composite "tessera.rms_norm" %113, %arg27 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %119 = stablehlo.composite "tessera.rms_norm" %115, %arg28 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %120 = stablehlo.composite "tessera.rope" %118, %33, %34 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %121 = stablehlo.composite "tessera.rope" %119, %33, %34 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %122 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.2.attn")
    %123 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.2.attn")
    %124 = stablehlo.compare  LT, %122, %123,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.2.attn")
    %125 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %126 = stablehlo.broadcast_in_dim %125, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %127 = stablehlo.select %124, %121, %126 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.2.attn")
    %128 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %129 = stablehlo.pad %127, %128, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %130 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.2.attn")
    %131 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.2.attn")
    %132 = stablehlo.compare  LT, %130, %131,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.2.attn")
    %133 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %134 = stablehlo.broadcast_in_dim %133, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %135 = stablehlo.select %132, %117, %134 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.2.attn")
    %136 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %137 = stablehlo.pad %135, %136, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %138 = stablehlo.composite "tessera.attention" %120, %121, %117, %arg37 {composite_attributes = {causal = false, has_bias = true, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %139 = stablehlo.reshape %138 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.2.attn")
    %140 = stablehlo.composite "tessera.linear" %139, %arg29 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %141 = stablehlo.add %109, %140 : tensor<16x64xf32> loc("layer.2.attn")
    %142 = stablehlo.composite "tessera.rms_norm" %141, %arg30 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %143 = stablehlo.composite "tessera.moe_mlp" %142, %arg31, %arg32, %arg33 {composite_attributes = {activation = "silu", normalize = true, top_k = 2 : i64}, decomposition = @tessera.moe_mlp.0} : (tensor<16x64xf32>, tensor<4x64xf32>, tensor<4x64x96xf32>, tensor<4x48x64xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %144 = stablehlo.add %141, %143 : tensor<16x64xf32> loc("layer.2.mlp")
    %145 = stablehlo.constant dense<1> : tensor<i32> loc("last_token")
    %146 = stablehlo.subtract %arg38, %145 : tensor<i32> loc("last_token")
    %147 = stablehlo.constant dense<0> : tensor<i32> loc("last_token")
    %148 = stablehlo.dynamic_slice %144, %146, %147, sizes = [1, 64] : (tensor<16x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32> loc("last_token")
    %149 = stablehlo.composite "tessera.rms_norm" %148, %arg34 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.3} : (tensor<1x64xf32>, tensor<64xf32>) -> tensor<1x64xf32> loc("lm_head")
    %150 = stablehlo.composite "tessera.linear" %149, %arg0 {decomposition = @tessera.linear.3} : (tensor<1x64xf32>, tensor<1344x64xf32>) -> tensor<1x1344xf32> loc("lm_head")
    %151 = stablehlo.reshape %150 : (tensor<1x1344xf32>) -> tensor<1344xf32> loc("lm_head")
    %152 = stablehlo.reshape %53 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %153 = stablehlo.reshape %91 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %154 = stablehlo.reshape %129 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %155 = stablehlo.concatenate %152, %153, %154, dim = 0 : (tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>) -> tensor<3x32x2x32xf32> loc("kv")
    %156 = stablehlo.reshape %61 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %157 = stablehlo.reshape %99 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %158 = stablehlo.reshape %137 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %159 = stablehlo.concatenate %156, %157, %158, dim = 0 : (tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>) -> tensor<3x32x2x32xf32> loc("kv")
    return %151, %155, %159 : tensor<1344xf32>, tensor<3x32x2x32xf32>, tensor<3x32x2x32xf32>
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
  func.func private @tessera.moe_mlp.0(%arg0: tensor<16x64xf32>, %arg1: tensor<4x64xf32>, %arg2: tensor<4x64x96xf32>, %arg3: tensor<4x48x64xf32>) -> tensor<16x64xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<4x64xf32>) -> tensor<16x4xf32>
    %1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = "stablehlo.reduce"(%0, %1) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %3 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
    }) : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<16xf32>) -> tensor<16x4xf32>
    %5 = stablehlo.subtract %0, %4 : tensor<16x4xf32>
    %6 = stablehlo.exponential %5 : tensor<16x4xf32>
    %7 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %8 = "stablehlo.reduce"(%6, %7) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %9 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %9 : tensor<f32>
    }) : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<16xf32>) -> tensor<16x4xf32>
    %11 = stablehlo.divide %6, %10 : tensor<16x4xf32>
    %12 = stablehlo.iota dim = 1 : tensor<16x4xi32>
    %13 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %15 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %17 = stablehlo.iota dim = 1 : tensor<16x4xi32>
    %18 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %19 = stablehlo.constant dense<0> : tensor<i32>
    %20:2 = "stablehlo.reduce"(%11, %17, %18, %19) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg8: tensor<f32>, %arg9: tensor<i32>, %arg10: tensor<f32>, %arg11: tensor<i32>):
      %21 = stablehlo.compare  GT, %arg8, %arg10,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %22 = stablehlo.compare  NE, %arg8, %arg8,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %23 = stablehlo.compare  NE, %arg10, %arg10,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %24 = stablehlo.compare  GT, %22, %23,  UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %25 = stablehlo.or %21, %24 : tensor<i1>
      %26 = stablehlo.compare  EQ, %arg8, %arg10,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %27 = stablehlo.and %22, %23 : tensor<i1>
      %28 = stablehlo.or %26, %27 : tensor<i1>
      %29 = stablehlo.compare  LT, %arg9, %arg11,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %30 = stablehlo.and %28, %29 : tensor<i1>
      %31 = stablehlo.or %25, %30 : tensor<i1>
      %32 = stablehlo.select %31, %arg8, %arg10 : tensor<i1>, tensor<f32>
      %33 = stablehlo.select %31, %arg9, %arg11 : tensor<i1>, tensor<i32>
      stablehlo.return %32, %33 : tensor<f32>, tensor<i32>
    }) : (tensor<16x4xf32>, tensor<16x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<16xf32>, tensor<16xi32>)
    %34 = stablehlo.broadcast_in_dim %20#1, dims = [0] : (tensor<16xi32>) -> tensor<16x4xi32>
    %35 = stablehlo.compare  EQ, %12, %34,  SIGNED : (tensor<16x4xi32>, tensor<16x4xi32>) -> tensor<16x4xi1>
    %36 = stablehlo.select %35, %11, %14 : tensor<16x4xi1>, tensor<16x4xf32>
    %37 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %38 = "stablehlo.reduce"(%36, %37) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
      %39 = stablehlo.add %arg12, %arg13 : tensor<f32>
      stablehlo.return %39 : tensor<f32>
    }) : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %40 = stablehlo.select %35, %11, %14 : tensor<16x4xi1>, tensor<16x4xf32>
    %41 = stablehlo.select %35, %16, %11 : tensor<16x4xi1>, tensor<16x4xf32>
    %42 = stablehlo.iota dim = 1 : tensor<16x4xi32>
    %43 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %44 = stablehlo.constant dense<0> : tensor<i32>
    %45:2 = "stablehlo.reduce"(%41, %42, %43, %44) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg14: tensor<f32>, %arg15: tensor<i32>, %arg16: tensor<f32>, %arg17: tensor<i32>):
      %46 = stablehlo.compare  GT, %arg14, %arg16,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %47 = stablehlo.compare  NE, %arg14, %arg14,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %48 = stablehlo.compare  NE, %arg16, %arg16,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %49 = stablehlo.compare  GT, %47, %48,  UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %50 = stablehlo.or %46, %49 : tensor<i1>
      %51 = stablehlo.compare  EQ, %arg14, %arg16,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %52 = stablehlo.and %47, %48 : tensor<i1>
      %53 = stablehlo.or %51, %52 : tensor<i1>
      %54 = stablehlo.compare  LT, %arg15, %arg17,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %55 = stablehlo.and %53, %54 : tensor<i1>
      %56 = stablehlo.or %50, %55 : tensor<i1>
      %57 = stablehlo.select %56, %arg14, %arg16 : tensor<i1>, tensor<f32>
      %58 = stablehlo.select %56, %arg15, %arg17 : tensor<i1>, tensor<i32>
      stablehlo.return %57, %58 : tensor<f32>, tensor<i32>
    }) : (tensor<16x4xf32>, tensor<16x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<16xf32>, tensor<16xi32>)
    %59 = stablehlo.broadcast_in_dim %45#1, dims = [0] : (tensor<16xi32>) -> tensor<16x4xi32>
    %60 = stablehlo.compare  EQ, %12, %59,  SIGNED : (tensor<16x4xi32>, tensor<16x4xi32>) -> tensor<16x4xi1>
    %61 = stablehlo.select %60, %11, %14 : tensor<16x4xi1>, tensor<16x4xf32>
    %62 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %63 = "stablehlo.reduce"(%61, %62) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg18: tensor<f32>, %arg19: tensor<f32>):
      %64 = stablehlo.add %arg18, %arg19 : tensor<f32>
      stablehlo.return %64 : tensor<f32>
    }) : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %65 = stablehlo.add %38, %63 : tensor<16xf32>
    %66 = stablehlo.select %60, %11, %40 : tensor<16x4xi1>, tensor<16x4xf32>
    %67 = stablehlo.select %60, %16, %41 : tensor<16x4xi1>, tensor<16x4xf32>
    %68 = stablehlo.broadcast_in_dim %65, dims = [0] : (tensor<16xf32>) -> tensor<16x4xf32>
    %69 = stablehlo.divide %66, %68 : tensor<16x4xf32>
    %70 = stablehlo.compare  EQ, %67, %16,  FLOAT : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xi1>
    %71 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<4x64x96xf32>) -> tensor<16x4x96xf32>
    %72 = stablehlo.slice %71 [0:16, 0:4, 0:48] : (tensor<16x4x96xf32>) -> tensor<16x4x48xf32>
    %73 = stablehlo.logistic %72 : tensor<16x4x48xf32>
    %74 = stablehlo.multiply %72, %73 : tensor<16x4x48xf32>
    %75 = stablehlo.slice %71 [0:16, 0:4, 48:96] : (tensor<16x4x96xf32>) -> tensor<16x4x48xf32>
    %76 = stablehlo.multiply %74, %75 : tensor<16x4x48xf32>
    %77 = stablehlo.dot_general %76, %arg3, batching_dims = [1] x [0], contracting_dims = [2] x [1] : (tensor<16x4x48xf32>, tensor<4x48x64xf32>) -> tensor<4x16x64xf32>
    %78 = stablehlo.transpose %69, dims = [1, 0] : (tensor<16x4xf32>) -> tensor<4x16xf32>
    %79 = stablehlo.broadcast_in_dim %78, dims = [0, 1] : (tensor<4x16xf32>) -> tensor<4x16x64xf32>
    %80 = stablehlo.transpose %70, dims = [1, 0] : (tensor<16x4xi1>) -> tensor<4x16xi1>
    %81 = stablehlo.broadcast_in_dim %80, dims = [0, 1] : (tensor<4x16xi1>) -> tensor<4x16x64xi1>
    %82 = stablehlo.multiply %77, %79 : tensor<4x16x64xf32>
    %83 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %83, dims = [] : (tensor<f32>) -> tensor<4x16x64xf32>
    %85 = stablehlo.select %81, %82, %84 : tensor<4x16x64xi1>, tensor<4x16x64xf32>
    %86 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %87 = "stablehlo.reduce"(%85, %86) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg20: tensor<f32>, %arg21: tensor<f32>):
      %88 = stablehlo.add %arg20, %arg21 : tensor<f32>
      stablehlo.return %88 : tensor<f32>
    }) : (tensor<4x16x64xf32>, tensor<f32>) -> tensor<16x64xf32>
    return %87 : tensor<16x64xf32>
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
