module @decode_main_c32 {
  func.func public @main(%arg0: tensor<1344x64xf32> {tessera.name = "model.language_model.embed_tokens.weight", tessera.role = "weight"}, %arg1: tensor<64xf32> {tessera.name = "model.language_model.layers.0.input_layernorm.weight", tessera.role = "weight"}, %arg2: tensor<128x64xf32> {tessera.name = "model.language_model.layers.0.self_attn.q_proj.weight", tessera.role = "weight"}, %arg3: tensor<64x64xf32> {tessera.name = "model.language_model.layers.0.self_attn.k_proj.weight", tessera.role = "weight"}, %arg4: tensor<64x64xf32> {tessera.name = "model.language_model.layers.0.self_attn.v_proj.weight", tessera.role = "weight"}, %arg5: tensor<32xf32> {tessera.name = "model.language_model.layers.0.self_attn.q_norm.weight", tessera.role = "weight"}, %arg6: tensor<32xf32> {tessera.name = "model.language_model.layers.0.self_attn.k_norm.weight", tessera.role = "weight"}, %arg7: tensor<64x128xf32> {tessera.name = "model.language_model.layers.0.self_attn.o_proj.weight", tessera.role = "weight"}, %arg8: tensor<64xf32> {tessera.name = "model.language_model.layers.0.post_attention_layernorm.weight", tessera.role = "weight"}, %arg9: tensor<160x64xf32> {tessera.name = "model.language_model.layers.0.mlp.gate_proj.weight", tessera.role = "weight"}, %arg10: tensor<160x64xf32> {tessera.name = "model.language_model.layers.0.mlp.up_proj.weight", tessera.role = "weight"}, %arg11: tensor<64x160xf32> {tessera.name = "model.language_model.layers.0.mlp.down_proj.weight", tessera.role = "weight"}, %arg12: tensor<64xf32> {tessera.name = "model.language_model.layers.1.input_layernorm.weight", tessera.role = "weight"}, %arg13: tensor<128x64xf32> {tessera.name = "model.language_model.layers.1.self_attn.q_proj.weight", tessera.role = "weight"}, %arg14: tensor<64x64xf32> {tessera.name = "model.language_model.layers.1.self_attn.k_proj.weight", tessera.role = "weight"}, %arg15: tensor<64x64xf32> {tessera.name = "model.language_model.layers.1.self_attn.v_proj.weight", tessera.role = "weight"}, %arg16: tensor<32xf32> {tessera.name = "model.language_model.layers.1.self_attn.q_norm.weight", tessera.role = "weight"}, %arg17: tensor<32xf32> {tessera.name = "model.language_model.layers.1.self_attn.k_norm.weight", tessera.role = "weight"}, %arg18: tensor<64x128xf32> {tessera.name = "model.language_model.layers.1.self_attn.o_proj.weight", tessera.role = "weight"}, %arg19: tensor<64xf32> {tessera.name = "model.language_model.layers.1.post_attention_layernorm.weight", tessera.role = "weight"}, %arg20: tensor<160x64xf32> {tessera.name = "model.language_model.layers.1.mlp.gate_proj.weight", tessera.role = "weight"}, %arg21: tensor<160x64xf32> {tessera.name = "model.language_model.layers.1.mlp.up_proj.weight", tessera.role = "weight"}, %arg22: tensor<64x160xf32> {tessera.name = "model.language_model.layers.1.mlp.down_proj.weight", tessera.role = "weight"}, %arg23: tensor<64xf32> {tessera.name = "model.language_model.layers.2.input_layernorm.weight", tessera.role = "weight"}, %arg24: tensor<128x64xf32> {tessera.name = "model.language_model.layers.2.self_attn.q_proj.weight", tessera.role = "weight"}, %arg25: tensor<64x64xf32> {tessera.name = "model.language_model.layers.2.self_attn.k_proj.weight", tessera.role = "weight"}, %arg26: tensor<64x64xf32> {tessera.name = "model.language_model.layers.2.self_attn.v_proj.weight", tessera.role = "weight"}, %arg27: tensor<32xf32> {tessera.name = "model.language_model.layers.2.self_attn.q_norm.weight", tessera.role = "weight"}, %arg28: tensor<32xf32> {tessera.name = "model.language_model.layers.2.self_attn.k_norm.weight", tessera.role = "weight"}, %arg29: tensor<64x128xf32> {tessera.name = "model.language_model.layers.2.self_attn.o_proj.weight", tessera.role = "weight"}, %arg30: tensor<64xf32> {tessera.name = "model.language_model.layers.2.post_attention_layernorm.weight", tessera.role = "weight"}, %arg31: tensor<160x64xf32> {tessera.name = "model.language_model.layers.2.mlp.gate_proj.weight", tessera.role = "weight"}, %arg32: tensor<160x64xf32> {tessera.name = "model.language_model.layers.2.mlp.up_proj.weight", tessera.role = "weight"}, %arg33: tensor<64x160xf32> {tessera.name = "model.language_model.layers.2.mlp.down_proj.weight", tessera.role = "weight"}, %arg34: tensor<64xf32> {tessera.name = "model.language_model.norm.weight", tessera.role = "weight"}, %arg35: tensor<2xi32> {tessera.name = "tokens", tessera.role = "input"}, %arg36: tensor<3x2xi32> {tessera.name = "positions", tessera.role = "input"}, %arg37: tensor<2xi32> {tessera.name = "rope_delta", tessera.role = "input"}, %arg38: tensor<2xi32> {tessera.name = "cache_len", tessera.role = "input"}, %arg39: tensor<2x3x32x2x32xf32> {tessera.name = "k", tessera.role = "state", tf.aliasing_output = 1 : i32}, %arg40: tensor<2x3x32x2x32xf32> {tessera.name = "v", tessera.role = "state", tf.aliasing_output = 2 : i32}) -> (tensor<2x1344xf32>, tensor<2x3x32x2x32xf32>, tensor<2x3x32x2x32xf32>) {
    %0 = stablehlo.broadcast_in_dim %arg37, dims = [1] : (tensor<2xi32>) -> tensor<3x2xi32> loc("rope")
    %1 = stablehlo.add %arg36, %0 : tensor<3x2xi32> loc("rope")
    %2 = stablehlo.constant dense<"0x0000803F3A3FC33E63E9143E1B25633D5E3DAD3C8820043CD38A493B86B6993AFF77EA394FD3323920638838620AD0374BAB1E37550772365D97B835E3C80C35"> : tensor<16xf32> loc("rope")
    %3 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<16xf32>) -> tensor<2x16xf32> loc("rope")
    %4 = stablehlo.slice %1 [0:1, 0:2] : (tensor<3x2xi32>) -> tensor<1x2xi32> loc("rope")
    %5 = stablehlo.reshape %4 : (tensor<1x2xi32>) -> tensor<2xi32> loc("rope")
    %6 = stablehlo.convert %5 : (tensor<2xi32>) -> tensor<2xf32> loc("rope")
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<2xf32>) -> tensor<2x16xf32> loc("rope")
    %8 = stablehlo.multiply %7, %3 : tensor<2x16xf32> loc("rope")
    %9 = stablehlo.slice %1 [1:2, 0:2] : (tensor<3x2xi32>) -> tensor<1x2xi32> loc("rope")
    %10 = stablehlo.reshape %9 : (tensor<1x2xi32>) -> tensor<2xi32> loc("rope")
    %11 = stablehlo.convert %10 : (tensor<2xi32>) -> tensor<2xf32> loc("rope")
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<2xf32>) -> tensor<2x16xf32> loc("rope")
    %13 = stablehlo.multiply %12, %3 : tensor<2x16xf32> loc("rope")
    %14 = stablehlo.slice %1 [2:3, 0:2] : (tensor<3x2xi32>) -> tensor<1x2xi32> loc("rope")
    %15 = stablehlo.reshape %14 : (tensor<1x2xi32>) -> tensor<2xi32> loc("rope")
    %16 = stablehlo.convert %15 : (tensor<2xi32>) -> tensor<2xf32> loc("rope")
    %17 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<2xf32>) -> tensor<2x16xf32> loc("rope")
    %18 = stablehlo.multiply %17, %3 : tensor<2x16xf32> loc("rope")
    %19 = stablehlo.constant dense<[0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]> : tensor<16xi32> loc("rope")
    %20 = stablehlo.broadcast_in_dim %19, dims = [1] : (tensor<16xi32>) -> tensor<2x16xi32> loc("rope")
    %21 = stablehlo.constant dense<1> : tensor<i32> loc("rope")
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<i32>) -> tensor<2x16xi32> loc("rope")
    %23 = stablehlo.compare  EQ, %20, %22,  SIGNED : (tensor<2x16xi32>, tensor<2x16xi32>) -> tensor<2x16xi1> loc("rope")
    %24 = stablehlo.constant dense<2> : tensor<i32> loc("rope")
    %25 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<i32>) -> tensor<2x16xi32> loc("rope")
    %26 = stablehlo.compare  EQ, %20, %25,  SIGNED : (tensor<2x16xi32>, tensor<2x16xi32>) -> tensor<2x16xi1> loc("rope")
    %27 = stablehlo.select %26, %18, %8 : tensor<2x16xi1>, tensor<2x16xf32> loc("rope")
    %28 = stablehlo.select %23, %13, %27 : tensor<2x16xi1>, tensor<2x16xf32> loc("rope")
    %29 = stablehlo.cosine %28 : tensor<2x16xf32> loc("rope")
    %30 = stablehlo.sine %28 : tensor<2x16xf32> loc("rope")
    %31 = stablehlo.composite "tessera.embedding" %arg0, %arg35 {decomposition = @tessera.embedding.0} : (tensor<1344x64xf32>, tensor<2xi32>) -> tensor<2x64xf32> loc("embed_tokens")
    %32 = stablehlo.composite "tessera.rms_norm" %31, %arg1 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %33 = stablehlo.composite "tessera.linear" %32, %arg2 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<128x64xf32>) -> tensor<2x128xf32> loc("layer.0.attn")
    %34 = stablehlo.reshape %33 : (tensor<2x128xf32>) -> tensor<2x4x32xf32> loc("layer.0.attn")
    %35 = stablehlo.composite "tessera.linear" %32, %arg3 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %36 = stablehlo.reshape %35 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.0.attn")
    %37 = stablehlo.composite "tessera.linear" %32, %arg4 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %38 = stablehlo.reshape %37 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.0.attn")
    %39 = stablehlo.composite "tessera.rms_norm" %34, %arg5 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<2x4x32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32> loc("layer.0.attn")
    %40 = stablehlo.composite "tessera.rms_norm" %36, %arg6 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<2x2x32xf32>, tensor<32xf32>) -> tensor<2x2x32xf32> loc("layer.0.attn")
    %41 = stablehlo.composite "tessera.rope" %39, %29, %30 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x4x32xf32> loc("layer.0.attn")
    %42 = stablehlo.composite "tessera.rope" %40, %29, %30 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x2x32xf32> loc("layer.0.attn")
    %43 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %44 = stablehlo.slice %arg38 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.0.attn")
    %45 = stablehlo.reshape %44 : (tensor<1xi32>) -> tensor<i32> loc("layer.0.attn")
    %46 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %47 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %48 = stablehlo.slice %42 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.0.attn")
    %49 = stablehlo.reshape %48 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.0.attn")
    %50 = stablehlo.dynamic_update_slice %arg39, %49, %46, %47, %45, %43, %43 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.0.attn")
    %51 = stablehlo.slice %38 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.0.attn")
    %52 = stablehlo.reshape %51 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.0.attn")
    %53 = stablehlo.dynamic_update_slice %arg40, %52, %46, %47, %45, %43, %43 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.0.attn")
    %54 = stablehlo.slice %50 [0:1, 0:1, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %55 = stablehlo.reshape %54 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %56 = stablehlo.slice %53 [0:1, 0:1, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %57 = stablehlo.reshape %56 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %58 = stablehlo.slice %41 [0:1, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.0.attn")
    %59 = stablehlo.composite "tessera.attention" %58, %55, %57, %45 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.0.attn")
    %60 = stablehlo.slice %arg38 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.0.attn")
    %61 = stablehlo.reshape %60 : (tensor<1xi32>) -> tensor<i32> loc("layer.0.attn")
    %62 = stablehlo.constant dense<1> : tensor<i32> loc("layer.0.attn")
    %63 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %64 = stablehlo.slice %42 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.0.attn")
    %65 = stablehlo.reshape %64 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.0.attn")
    %66 = stablehlo.dynamic_update_slice %50, %65, %62, %63, %61, %43, %43 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.0.attn")
    %67 = stablehlo.slice %38 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.0.attn")
    %68 = stablehlo.reshape %67 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.0.attn")
    %69 = stablehlo.dynamic_update_slice %53, %68, %62, %63, %61, %43, %43 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.0.attn")
    %70 = stablehlo.slice %66 [1:2, 0:1, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %71 = stablehlo.reshape %70 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %72 = stablehlo.slice %69 [1:2, 0:1, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %73 = stablehlo.reshape %72 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %74 = stablehlo.slice %41 [1:2, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.0.attn")
    %75 = stablehlo.composite "tessera.attention" %74, %71, %73, %61 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.0.attn")
    %76 = stablehlo.concatenate %59, %75, dim = 0 : (tensor<1x4x32xf32>, tensor<1x4x32xf32>) -> tensor<2x4x32xf32> loc("layer.0.attn")
    %77 = stablehlo.reshape %76 : (tensor<2x4x32xf32>) -> tensor<2x128xf32> loc("layer.0.attn")
    %78 = stablehlo.composite "tessera.linear" %77, %arg7 {decomposition = @tessera.linear.2} : (tensor<2x128xf32>, tensor<64x128xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %79 = stablehlo.add %31, %78 : tensor<2x64xf32> loc("layer.0.attn")
    %80 = stablehlo.composite "tessera.rms_norm" %79, %arg8 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.0.mlp")
    %81 = stablehlo.composite "tessera.gated_mlp" %80, %arg9, %arg10, %arg11 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.0.mlp")
    %82 = stablehlo.add %79, %81 : tensor<2x64xf32> loc("layer.0.mlp")
    %83 = stablehlo.composite "tessera.rms_norm" %82, %arg12 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %84 = stablehlo.composite "tessera.linear" %83, %arg13 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<128x64xf32>) -> tensor<2x128xf32> loc("layer.1.attn")
    %85 = stablehlo.reshape %84 : (tensor<2x128xf32>) -> tensor<2x4x32xf32> loc("layer.1.attn")
    %86 = stablehlo.composite "tessera.linear" %83, %arg14 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %87 = stablehlo.reshape %86 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.1.attn")
    %88 = stablehlo.composite "tessera.linear" %83, %arg15 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %89 = stablehlo.reshape %88 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.1.attn")
    %90 = stablehlo.composite "tessera.rms_norm" %85, %arg16 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<2x4x32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32> loc("layer.1.attn")
    %91 = stablehlo.composite "tessera.rms_norm" %87, %arg17 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<2x2x32xf32>, tensor<32xf32>) -> tensor<2x2x32xf32> loc("layer.1.attn")
    %92 = stablehlo.composite "tessera.rope" %90, %29, %30 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x4x32xf32> loc("layer.1.attn")
    %93 = stablehlo.composite "tessera.rope" %91, %29, %30 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x2x32xf32> loc("layer.1.attn")
    %94 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %95 = stablehlo.slice %arg38 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.1.attn")
    %96 = stablehlo.reshape %95 : (tensor<1xi32>) -> tensor<i32> loc("layer.1.attn")
    %97 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %98 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %99 = stablehlo.slice %93 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.1.attn")
    %100 = stablehlo.reshape %99 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.1.attn")
    %101 = stablehlo.dynamic_update_slice %66, %100, %97, %98, %96, %94, %94 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.1.attn")
    %102 = stablehlo.slice %89 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.1.attn")
    %103 = stablehlo.reshape %102 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.1.attn")
    %104 = stablehlo.dynamic_update_slice %69, %103, %97, %98, %96, %94, %94 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.1.attn")
    %105 = stablehlo.slice %101 [0:1, 1:2, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %106 = stablehlo.reshape %105 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %107 = stablehlo.slice %104 [0:1, 1:2, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %108 = stablehlo.reshape %107 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %109 = stablehlo.slice %92 [0:1, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.1.attn")
    %110 = stablehlo.composite "tessera.attention" %109, %106, %108, %96 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.1.attn")
    %111 = stablehlo.slice %arg38 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.1.attn")
    %112 = stablehlo.reshape %111 : (tensor<1xi32>) -> tensor<i32> loc("layer.1.attn")
    %113 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %114 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %115 = stablehlo.slice %93 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.1.attn")
    %116 = stablehlo.reshape %115 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.1.attn")
    %117 = stablehlo.dynamic_update_slice %101, %116, %113, %114, %112, %94, %94 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.1.attn")
    %118 = stablehlo.slice %89 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.1.attn")
    %119 = stablehlo.reshape %118 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.1.attn")
    %120 = stablehlo.dynamic_update_slice %104, %119, %113, %114, %112, %94, %94 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.1.attn")
    %121 = stablehlo.slice %117 [1:2, 1:2, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %122 = stablehlo.reshape %121 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %123 = stablehlo.slice %120 [1:2, 1:2, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %124 = stablehlo.reshape %123 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %125 = stablehlo.slice %92 [1:2, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.1.attn")
    %126 = stablehlo.composite "tessera.attention" %125, %122, %124, %112 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.1.attn")
    %127 = stablehlo.concatenate %110, %126, dim = 0 : (tensor<1x4x32xf32>, tensor<1x4x32xf32>) -> tensor<2x4x32xf32> loc("layer.1.attn")
    %128 = stablehlo.reshape %127 : (tensor<2x4x32xf32>) -> tensor<2x128xf32> loc("layer.1.attn")
    %129 = stablehlo.composite "tessera.linear" %128, %arg18 {decomposition = @tessera.linear.2} : (tensor<2x128xf32>, tensor<64x128xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %130 = stablehlo.add %82, %129 : tensor<2x64xf32> loc("layer.1.attn")
    %131 = stablehlo.composite "tessera.rms_norm" %130, %arg19 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.1.mlp")
    %132 = stablehlo.composite "tessera.gated_mlp" %131, %arg20, %arg21, %arg22 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.1.mlp")
    %133 = stablehlo.add %130, %132 : tensor<2x64xf32> loc("layer.1.mlp")
    %134 = stablehlo.composite "tessera.rms_norm" %133, %arg23 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %135 = stablehlo.composite "tessera.linear" %134, %arg24 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<128x64xf32>) -> tensor<2x128xf32> loc("layer.2.attn")
    %136 = stablehlo.reshape %135 : (tensor<2x128xf32>) -> tensor<2x4x32xf32> loc("layer.2.attn")
    %137 = stablehlo.composite "tessera.linear" %134, %arg25 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %138 = stablehlo.reshape %137 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.2.attn")
    %139 = stablehlo.composite "tessera.linear" %134, %arg26 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %140 = stablehlo.reshape %139 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.2.attn")
    %141 = stablehlo.composite "tessera.rms_norm" %136, %arg27 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<2x4x32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32> loc("layer.2.attn")
    %142 = stablehlo.composite "tessera.rms_norm" %138, %arg28 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<2x2x32xf32>, tensor<32xf32>) -> tensor<2x2x32xf32> loc("layer.2.attn")
    %143 = stablehlo.composite "tessera.rope" %141, %29, %30 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x4x32xf32> loc("layer.2.attn")
    %144 = stablehlo.composite "tessera.rope" %142, %29, %30 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x2x32xf32> loc("layer.2.attn")
    %145 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %146 = stablehlo.slice %arg38 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.2.attn")
    %147 = stablehlo.reshape %146 : (tensor<1xi32>) -> tensor<i32> loc("layer.2.attn")
    %148 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %149 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %150 = stablehlo.slice %144 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.2.attn")
    %151 = stablehlo.reshape %150 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.2.attn")
    %152 = stablehlo.dynamic_update_slice %117, %151, %148, %149, %147, %145, %145 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.2.attn")
    %153 = stablehlo.slice %140 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.2.attn")
    %154 = stablehlo.reshape %153 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.2.attn")
    %155 = stablehlo.dynamic_update_slice %120, %154, %148, %149, %147, %145, %145 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.2.attn")
    %156 = stablehlo.slice %152 [0:1, 2:3, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %157 = stablehlo.reshape %156 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %158 = stablehlo.slice %155 [0:1, 2:3, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %159 = stablehlo.reshape %158 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %160 = stablehlo.slice %143 [0:1, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.2.attn")
    %161 = stablehlo.composite "tessera.attention" %160, %157, %159, %147 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.2.attn")
    %162 = stablehlo.slice %arg38 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.2.attn")
    %163 = stablehlo.reshape %162 : (tensor<1xi32>) -> tensor<i32> loc("layer.2.attn")
    %164 = stablehlo.constant dense<1> : tensor<i32> loc("layer.2.attn")
    %165 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %166 = stablehlo.slice %144 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.2.attn")
    %167 = stablehlo.reshape %166 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.2.attn")
    %168 = stablehlo.dynamic_update_slice %152, %167, %164, %165, %163, %145, %145 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.2.attn")
    %169 = stablehlo.slice %140 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.2.attn")
    %170 = stablehlo.reshape %169 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.2.attn")
    %171 = stablehlo.dynamic_update_slice %155, %170, %164, %165, %163, %145, %145 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.2.attn")
    %172 = stablehlo.slice %168 [1:2, 2:3, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %173 = stablehlo.reshape %172 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %174 = stablehlo.slice %171 [1:2, 2:3, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %175 = stablehlo.reshape %174 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %176 = stablehlo.slice %143 [1:2, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.2.attn")
    %177 = stablehlo.composite "tessera.attention" %176, %173, %175, %163 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.2.attn")
    %178 = stablehlo.concatenate %161, %177, dim = 0 : (tensor<1x4x32xf32>, tensor<1x4x32xf32>) -> tensor<2x4x32xf32> loc("layer.2.attn")
    %179 = stablehlo.reshape %178 : (tensor<2x4x32xf32>) -> tensor<2x128xf32> loc("layer.2.attn")
    %180 = stablehlo.composite "tessera.linear" %179, %arg29 {decomposition = @tessera.linear.2} : (tensor<2x128xf32>, tensor<64x128xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %181 = stablehlo.add %133, %180 : tensor<2x64xf32> loc("layer.2.attn")
    %182 = stablehlo.composite "tessera.rms_norm" %181, %arg30 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.2.mlp")
    %183 = stablehlo.composite "tessera.gated_mlp" %182, %arg31, %arg32, %arg33 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.2.mlp")
    %184 = stablehlo.add %181, %183 : tensor<2x64xf32> loc("layer.2.mlp")
    %185 = stablehlo.composite "tessera.rms_norm" %184, %arg34 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("lm_head")
    %186 = stablehlo.composite "tessera.linear" %185, %arg0 {decomposition = @tessera.linear.3} : (tensor<2x64xf32>, tensor<1344x64xf32>) -> tensor<2x1344xf32> loc("lm_head")
    return %186, %168, %171 : tensor<2x1344xf32>, tensor<2x3x32x2x32xf32>, tensor<2x3x32x2x32xf32>
  }
  func.func private @tessera.embedding.0(%arg0: tensor<1344x64xf32>, %arg1: tensor<2xi32>) -> tensor<2x64xf32> {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 64>}> : (tensor<1344x64xf32>, tensor<2xi32>) -> tensor<2x64xf32>
    return %0 : tensor<2x64xf32>
  }
  func.func private @tessera.rms_norm.0(%arg0: tensor<2x64xf32>, %arg1: tensor<64xf32>) -> tensor<2x64xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<2x64xf32>
    %1 = stablehlo.constant dense<0x42800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<2x64xf32>
    %3 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %4 = "stablehlo.reduce"(%0, %3) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<2x64xf32>, tensor<f32>) -> tensor<2xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xf32>) -> tensor<2x64xf32>
    %7 = stablehlo.divide %6, %2 : tensor<2x64xf32>
    %8 = stablehlo.constant dense<0x358637BD> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<2x64xf32>
    %10 = stablehlo.add %7, %9 : tensor<2x64xf32>
    %11 = stablehlo.rsqrt %10 : tensor<2x64xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<2x64xf32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<2x64xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<2x64xf32>
    return %14 : tensor<2x64xf32>
  }
  func.func private @tessera.linear.0(%arg0: tensor<2x64xf32>, %arg1: tensor<128x64xf32>) -> tensor<2x128xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<2x64xf32>, tensor<128x64xf32>) -> tensor<2x128xf32>
    return %0 : tensor<2x128xf32>
  }
  func.func private @tessera.linear.1(%arg0: tensor<2x64xf32>, %arg1: tensor<64x64xf32>) -> tensor<2x64xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32>
    return %0 : tensor<2x64xf32>
  }
  func.func private @tessera.rms_norm.1(%arg0: tensor<2x4x32xf32>, %arg1: tensor<32xf32>) -> tensor<2x4x32xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<2x4x32xf32>
    %1 = stablehlo.constant dense<0x42000000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<2x4x32xf32>
    %3 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %4 = "stablehlo.reduce"(%0, %3) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<2x4x32xf32>, tensor<f32>) -> tensor<2x4xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<2x4xf32>) -> tensor<2x4x32xf32>
    %7 = stablehlo.divide %6, %2 : tensor<2x4x32xf32>
    %8 = stablehlo.constant dense<0x358637BD> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<2x4x32xf32>
    %10 = stablehlo.add %7, %9 : tensor<2x4x32xf32>
    %11 = stablehlo.rsqrt %10 : tensor<2x4x32xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<2x4x32xf32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<32xf32>) -> tensor<2x4x32xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<2x4x32xf32>
    return %14 : tensor<2x4x32xf32>
  }
  func.func private @tessera.rms_norm.2(%arg0: tensor<2x2x32xf32>, %arg1: tensor<32xf32>) -> tensor<2x2x32xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<2x2x32xf32>
    %1 = stablehlo.constant dense<0x42000000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<2x2x32xf32>
    %3 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %4 = "stablehlo.reduce"(%0, %3) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<2x2x32xf32>, tensor<f32>) -> tensor<2x2xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<2x2xf32>) -> tensor<2x2x32xf32>
    %7 = stablehlo.divide %6, %2 : tensor<2x2x32xf32>
    %8 = stablehlo.constant dense<0x358637BD> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<2x2x32xf32>
    %10 = stablehlo.add %7, %9 : tensor<2x2x32xf32>
    %11 = stablehlo.rsqrt %10 : tensor<2x2x32xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<2x2x32xf32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<32xf32>) -> tensor<2x2x32xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<2x2x32xf32>
    return %14 : tensor<2x2x32xf32>
  }
  func.func private @tessera.rope.0(%arg0: tensor<2x4x32xf32>, %arg1: tensor<2x16xf32>, %arg2: tensor<2x16xf32>) -> tensor<2x4x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<2x16xf32>) -> tensor<2x4x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0, 2] : (tensor<2x16xf32>) -> tensor<2x4x16xf32>
    %2 = stablehlo.slice %arg0 [0:2, 0:4, 0:16] : (tensor<2x4x32xf32>) -> tensor<2x4x16xf32>
    %3 = stablehlo.slice %arg0 [0:2, 0:4, 16:32] : (tensor<2x4x32xf32>) -> tensor<2x4x16xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<2x4x16xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<2x4x16xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<2x4x16xf32>
    %7 = stablehlo.multiply %2, %1 : tensor<2x4x16xf32>
    %8 = stablehlo.multiply %3, %0 : tensor<2x4x16xf32>
    %9 = stablehlo.add %8, %7 : tensor<2x4x16xf32>
    %10 = stablehlo.concatenate %6, %9, dim = 2 : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x32xf32>
    return %10 : tensor<2x4x32xf32>
  }
  func.func private @tessera.rope.1(%arg0: tensor<2x2x32xf32>, %arg1: tensor<2x16xf32>, %arg2: tensor<2x16xf32>) -> tensor<2x2x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<2x16xf32>) -> tensor<2x2x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0, 2] : (tensor<2x16xf32>) -> tensor<2x2x16xf32>
    %2 = stablehlo.slice %arg0 [0:2, 0:2, 0:16] : (tensor<2x2x32xf32>) -> tensor<2x2x16xf32>
    %3 = stablehlo.slice %arg0 [0:2, 0:2, 16:32] : (tensor<2x2x32xf32>) -> tensor<2x2x16xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<2x2x16xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<2x2x16xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<2x2x16xf32>
    %7 = stablehlo.multiply %2, %1 : tensor<2x2x16xf32>
    %8 = stablehlo.multiply %3, %0 : tensor<2x2x16xf32>
    %9 = stablehlo.add %8, %7 : tensor<2x2x16xf32>
    %10 = stablehlo.concatenate %6, %9, dim = 2 : (tensor<2x2x16xf32>, tensor<2x2x16xf32>) -> tensor<2x2x32xf32>
    return %10 : tensor<2x2x32xf32>
  }
  func.func private @tessera.attention.0(%arg0: tensor<1x4x32xf32>, %arg1: tensor<32x2x32xf32>, %arg2: tensor<32x2x32xf32>, %arg3: tensor<i32>) -> tensor<1x4x32xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<1x4x32xf32>) -> tensor<1x2x2x32xf32>
    %1 = stablehlo.dot_general %0, %arg1, batching_dims = [1] x [1], contracting_dims = [3] x [2] : (tensor<1x2x2x32xf32>, tensor<32x2x32xf32>) -> tensor<2x1x2x32xf32>
    %2 = stablehlo.constant dense<0x3E3504F3> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<2x1x2x32xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<2x1x2x32xf32>
    %5 = stablehlo.iota dim = 0 : tensor<1x32xi32>
    %6 = stablehlo.iota dim = 1 : tensor<1x32xi32>
    %7 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<i32>) -> tensor<1x32xi32>
    %8 = stablehlo.add %5, %7 : tensor<1x32xi32>
    %9 = stablehlo.compare  LE, %6, %8,  SIGNED : (tensor<1x32xi32>, tensor<1x32xi32>) -> tensor<1x32xi1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [1, 3] : (tensor<1x32xi1>) -> tensor<2x1x2x32xi1>
    %11 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<2x1x2x32xf32>
    %13 = stablehlo.select %10, %4, %12 : tensor<2x1x2x32xi1>, tensor<2x1x2x32xf32>
    %14 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %15 = "stablehlo.reduce"(%13, %14) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %16 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %16 : tensor<f32>
    }) : (tensor<2x1x2x32xf32>, tensor<f32>) -> tensor<2x1x2xf32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<2x1x2xf32>) -> tensor<2x1x2x32xf32>
    %18 = stablehlo.subtract %13, %17 : tensor<2x1x2x32xf32>
    %19 = stablehlo.exponential %18 : tensor<2x1x2x32xf32>
    %20 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %21 = "stablehlo.reduce"(%19, %20) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %22 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %22 : tensor<f32>
    }) : (tensor<2x1x2x32xf32>, tensor<f32>) -> tensor<2x1x2xf32>
    %23 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2] : (tensor<2x1x2xf32>) -> tensor<2x1x2x32xf32>
    %24 = stablehlo.divide %19, %23 : tensor<2x1x2x32xf32>
    %25 = stablehlo.dot_general %24, %arg2, batching_dims = [0] x [1], contracting_dims = [3] x [0] : (tensor<2x1x2x32xf32>, tensor<32x2x32xf32>) -> tensor<2x1x2x32xf32>
    %26 = stablehlo.transpose %25, dims = [1, 0, 2, 3] : (tensor<2x1x2x32xf32>) -> tensor<1x2x2x32xf32>
    %27 = stablehlo.reshape %26 : (tensor<1x2x2x32xf32>) -> tensor<1x4x32xf32>
    return %27 : tensor<1x4x32xf32>
  }
  func.func private @tessera.linear.2(%arg0: tensor<2x128xf32>, %arg1: tensor<64x128xf32>) -> tensor<2x64xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<2x128xf32>, tensor<64x128xf32>) -> tensor<2x64xf32>
    return %0 : tensor<2x64xf32>
  }
  func.func private @tessera.gated_mlp.0(%arg0: tensor<2x64xf32>, %arg1: tensor<160x64xf32>, %arg2: tensor<160x64xf32>, %arg3: tensor<64x160xf32>) -> tensor<2x64xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<2x64xf32>, tensor<160x64xf32>) -> tensor<2x160xf32>
    %1 = stablehlo.logistic %0 : tensor<2x160xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<2x160xf32>
    %3 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [1] : (tensor<2x64xf32>, tensor<160x64xf32>) -> tensor<2x160xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<2x160xf32>
    %5 = stablehlo.dot_general %4, %arg3, contracting_dims = [1] x [1] : (tensor<2x160xf32>, tensor<64x160xf32>) -> tensor<2x64xf32>
    return %5 : tensor<2x64xf32>
  }
  func.func private @tessera.linear.3(%arg0: tensor<2x64xf32>, %arg1: tensor<1344x64xf32>) -> tensor<2x1344xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<2x64xf32>, tensor<1344x64xf32>) -> tensor<2x1344xf32>
    return %0 : tensor<2x1344xf32>
  }
}
