module @decode_main_c32 {
  func.func public @main(%arg0: tensor<1344x64xf32> {tessera.name = "model.embed_tokens.weight", tessera.role = "weight"}, %arg1: tensor<64xf32> {tessera.name = "model.layers.0.input_layernorm.weight", tessera.role = "weight"}, %arg2: tensor<128x64xf32> {tessera.name = "model.layers.0.self_attn.q_proj.weight", tessera.role = "weight"}, %arg3: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.k_proj.weight", tessera.role = "weight"}, %arg4: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.v_proj.weight", tessera.role = "weight"}, %arg5: tensor<32xf32> {tessera.name = "model.layers.0.self_attn.q_norm.weight", tessera.role = "weight"}, %arg6: tensor<32xf32> {tessera.name = "model.layers.0.self_attn.k_norm.weight", tessera.role = "weight"}, %arg7: tensor<64x128xf32> {tessera.name = "model.layers.0.self_attn.o_proj.weight", tessera.role = "weight"}, %arg8: tensor<64xf32> {tessera.name = "model.layers.0.post_attention_layernorm.weight", tessera.role = "weight"}, %arg9: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.gate_proj.weight", tessera.role = "weight"}, %arg10: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.up_proj.weight", tessera.role = "weight"}, %arg11: tensor<64x160xf32> {tessera.name = "model.layers.0.mlp.down_proj.weight", tessera.role = "weight"}, %arg12: tensor<64xf32> {tessera.name = "model.layers.1.input_layernorm.weight", tessera.role = "weight"}, %arg13: tensor<128x64xf32> {tessera.name = "model.layers.1.self_attn.q_proj.weight", tessera.role = "weight"}, %arg14: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.k_proj.weight", tessera.role = "weight"}, %arg15: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.v_proj.weight", tessera.role = "weight"}, %arg16: tensor<32xf32> {tessera.name = "model.layers.1.self_attn.q_norm.weight", tessera.role = "weight"}, %arg17: tensor<32xf32> {tessera.name = "model.layers.1.self_attn.k_norm.weight", tessera.role = "weight"}, %arg18: tensor<64x128xf32> {tessera.name = "model.layers.1.self_attn.o_proj.weight", tessera.role = "weight"}, %arg19: tensor<64xf32> {tessera.name = "model.layers.1.post_attention_layernorm.weight", tessera.role = "weight"}, %arg20: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.gate_proj.weight", tessera.role = "weight"}, %arg21: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.up_proj.weight", tessera.role = "weight"}, %arg22: tensor<64x160xf32> {tessera.name = "model.layers.1.mlp.down_proj.weight", tessera.role = "weight"}, %arg23: tensor<64xf32> {tessera.name = "model.layers.2.input_layernorm.weight", tessera.role = "weight"}, %arg24: tensor<128x64xf32> {tessera.name = "model.layers.2.self_attn.q_proj.weight", tessera.role = "weight"}, %arg25: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.k_proj.weight", tessera.role = "weight"}, %arg26: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.v_proj.weight", tessera.role = "weight"}, %arg27: tensor<32xf32> {tessera.name = "model.layers.2.self_attn.q_norm.weight", tessera.role = "weight"}, %arg28: tensor<32xf32> {tessera.name = "model.layers.2.self_attn.k_norm.weight", tessera.role = "weight"}, %arg29: tensor<64x128xf32> {tessera.name = "model.layers.2.self_attn.o_proj.weight", tessera.role = "weight"}, %arg30: tensor<64xf32> {tessera.name = "model.layers.2.post_attention_layernorm.weight", tessera.role = "weight"}, %arg31: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.gate_proj.weight", tessera.role = "weight"}, %arg32: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.up_proj.weight", tessera.role = "weight"}, %arg33: tensor<64x160xf32> {tessera.name = "model.layers.2.mlp.down_proj.weight", tessera.role = "weight"}, %arg34: tensor<64xf32> {tessera.name = "model.norm.weight", tessera.role = "weight"}, %arg35: tensor<2xi32> {tessera.name = "tokens", tessera.role = "input"}, %arg36: tensor<2xi32> {tessera.name = "positions", tessera.role = "input"}, %arg37: tensor<2xi32> {tessera.name = "rope_delta", tessera.role = "input"}, %arg38: tensor<2xi32> {tessera.name = "cache_len", tessera.role = "input"}, %arg39: tensor<2x3x32x2x32xf32> {tessera.name = "k", tessera.role = "state", tf.aliasing_output = 1 : i32}, %arg40: tensor<2x3x32x2x32xf32> {tessera.name = "v", tessera.role = "state", tf.aliasing_output = 2 : i32}) -> (tensor<2x1344xf32>, tensor<2x3x32x2x32xf32>, tensor<2x3x32x2x32xf32>) {
    %0 = stablehlo.add %arg36, %arg37 : tensor<2xi32> loc("rope")
    %1 = stablehlo.constant dense<"0x0000803F9BE8D73E8718363E0D94993DE386013DF27B5A3C9C44B83B0D691B3B6F12833A2517DD3953773A39A4439D38B2A204384FBA5F37C1B0BC36E4231F36"> : tensor<16xf32> loc("rope")
    %2 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<16xf32>) -> tensor<2x16xf32> loc("rope")
    %3 = stablehlo.convert %0 : (tensor<2xi32>) -> tensor<2xf32> loc("rope")
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xf32>) -> tensor<2x16xf32> loc("rope")
    %5 = stablehlo.multiply %4, %2 : tensor<2x16xf32> loc("rope")
    %6 = stablehlo.cosine %5 : tensor<2x16xf32> loc("rope")
    %7 = stablehlo.sine %5 : tensor<2x16xf32> loc("rope")
    %8 = stablehlo.composite "tessera.embedding" %arg0, %arg35 {decomposition = @tessera.embedding.0} : (tensor<1344x64xf32>, tensor<2xi32>) -> tensor<2x64xf32> loc("embed_tokens")
    %9 = stablehlo.composite "tessera.rms_norm" %8, %arg1 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %10 = stablehlo.composite "tessera.linear" %9, %arg2 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<128x64xf32>) -> tensor<2x128xf32> loc("layer.0.attn")
    %11 = stablehlo.reshape %10 : (tensor<2x128xf32>) -> tensor<2x4x32xf32> loc("layer.0.attn")
    %12 = stablehlo.composite "tessera.linear" %9, %arg3 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %13 = stablehlo.reshape %12 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.0.attn")
    %14 = stablehlo.composite "tessera.linear" %9, %arg4 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %15 = stablehlo.reshape %14 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.0.attn")
    %16 = stablehlo.composite "tessera.rms_norm" %11, %arg5 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<2x4x32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32> loc("layer.0.attn")
    %17 = stablehlo.composite "tessera.rms_norm" %13, %arg6 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<2x2x32xf32>, tensor<32xf32>) -> tensor<2x2x32xf32> loc("layer.0.attn")
    %18 = stablehlo.composite "tessera.rope" %16, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x4x32xf32> loc("layer.0.attn")
    %19 = stablehlo.composite "tessera.rope" %17, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x2x32xf32> loc("layer.0.attn")
    %20 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %21 = stablehlo.slice %arg38 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.0.attn")
    %22 = stablehlo.reshape %21 : (tensor<1xi32>) -> tensor<i32> loc("layer.0.attn")
    %23 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %24 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %25 = stablehlo.slice %19 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.0.attn")
    %26 = stablehlo.reshape %25 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.0.attn")
    %27 = stablehlo.dynamic_update_slice %arg39, %26, %23, %24, %22, %20, %20 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.0.attn")
    %28 = stablehlo.slice %15 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.0.attn")
    %29 = stablehlo.reshape %28 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.0.attn")
    %30 = stablehlo.dynamic_update_slice %arg40, %29, %23, %24, %22, %20, %20 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.0.attn")
    %31 = stablehlo.slice %27 [0:1, 0:1, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %32 = stablehlo.reshape %31 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %33 = stablehlo.slice %30 [0:1, 0:1, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %34 = stablehlo.reshape %33 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %35 = stablehlo.slice %18 [0:1, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.0.attn")
    %36 = stablehlo.composite "tessera.attention" %35, %32, %34, %22 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.0.attn")
    %37 = stablehlo.slice %arg38 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.0.attn")
    %38 = stablehlo.reshape %37 : (tensor<1xi32>) -> tensor<i32> loc("layer.0.attn")
    %39 = stablehlo.constant dense<1> : tensor<i32> loc("layer.0.attn")
    %40 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %41 = stablehlo.slice %19 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.0.attn")
    %42 = stablehlo.reshape %41 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.0.attn")
    %43 = stablehlo.dynamic_update_slice %27, %42, %39, %40, %38, %20, %20 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.0.attn")
    %44 = stablehlo.slice %15 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.0.attn")
    %45 = stablehlo.reshape %44 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.0.attn")
    %46 = stablehlo.dynamic_update_slice %30, %45, %39, %40, %38, %20, %20 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.0.attn")
    %47 = stablehlo.slice %43 [1:2, 0:1, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %48 = stablehlo.reshape %47 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %49 = stablehlo.slice %46 [1:2, 0:1, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %50 = stablehlo.reshape %49 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %51 = stablehlo.slice %18 [1:2, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.0.attn")
    %52 = stablehlo.composite "tessera.attention" %51, %48, %50, %38 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.0.attn")
    %53 = stablehlo.concatenate %36, %52, dim = 0 : (tensor<1x4x32xf32>, tensor<1x4x32xf32>) -> tensor<2x4x32xf32> loc("layer.0.attn")
    %54 = stablehlo.reshape %53 : (tensor<2x4x32xf32>) -> tensor<2x128xf32> loc("layer.0.attn")
    %55 = stablehlo.composite "tessera.linear" %54, %arg7 {decomposition = @tessera.linear.2} : (tensor<2x128xf32>, tensor<64x128xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %56 = stablehlo.add %8, %55 : tensor<2x64xf32> loc("layer.0.attn")
    %57 = stablehlo.composite "tessera.rms_norm" %56, %arg8 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.0.mlp")
    %58 = stablehlo.composite "tessera.gated_mlp" %57, %arg9, %arg10, %arg11 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.0.mlp")
    %59 = stablehlo.add %56, %58 : tensor<2x64xf32> loc("layer.0.mlp")
    %60 = stablehlo.composite "tessera.rms_norm" %59, %arg12 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %61 = stablehlo.composite "tessera.linear" %60, %arg13 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<128x64xf32>) -> tensor<2x128xf32> loc("layer.1.attn")
    %62 = stablehlo.reshape %61 : (tensor<2x128xf32>) -> tensor<2x4x32xf32> loc("layer.1.attn")
    %63 = stablehlo.composite "tessera.linear" %60, %arg14 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %64 = stablehlo.reshape %63 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.1.attn")
    %65 = stablehlo.composite "tessera.linear" %60, %arg15 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %66 = stablehlo.reshape %65 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.1.attn")
    %67 = stablehlo.composite "tessera.rms_norm" %62, %arg16 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<2x4x32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32> loc("layer.1.attn")
    %68 = stablehlo.composite "tessera.rms_norm" %64, %arg17 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<2x2x32xf32>, tensor<32xf32>) -> tensor<2x2x32xf32> loc("layer.1.attn")
    %69 = stablehlo.composite "tessera.rope" %67, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x4x32xf32> loc("layer.1.attn")
    %70 = stablehlo.composite "tessera.rope" %68, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x2x32xf32> loc("layer.1.attn")
    %71 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %72 = stablehlo.slice %arg38 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.1.attn")
    %73 = stablehlo.reshape %72 : (tensor<1xi32>) -> tensor<i32> loc("layer.1.attn")
    %74 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %75 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %76 = stablehlo.slice %70 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.1.attn")
    %77 = stablehlo.reshape %76 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.1.attn")
    %78 = stablehlo.dynamic_update_slice %43, %77, %74, %75, %73, %71, %71 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.1.attn")
    %79 = stablehlo.slice %66 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.1.attn")
    %80 = stablehlo.reshape %79 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.1.attn")
    %81 = stablehlo.dynamic_update_slice %46, %80, %74, %75, %73, %71, %71 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.1.attn")
    %82 = stablehlo.slice %78 [0:1, 1:2, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %83 = stablehlo.reshape %82 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %84 = stablehlo.slice %81 [0:1, 1:2, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %85 = stablehlo.reshape %84 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %86 = stablehlo.slice %69 [0:1, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.1.attn")
    %87 = stablehlo.composite "tessera.attention" %86, %83, %85, %73 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.1.attn")
    %88 = stablehlo.slice %arg38 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.1.attn")
    %89 = stablehlo.reshape %88 : (tensor<1xi32>) -> tensor<i32> loc("layer.1.attn")
    %90 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %91 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %92 = stablehlo.slice %70 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.1.attn")
    %93 = stablehlo.reshape %92 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.1.attn")
    %94 = stablehlo.dynamic_update_slice %78, %93, %90, %91, %89, %71, %71 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.1.attn")
    %95 = stablehlo.slice %66 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.1.attn")
    %96 = stablehlo.reshape %95 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.1.attn")
    %97 = stablehlo.dynamic_update_slice %81, %96, %90, %91, %89, %71, %71 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.1.attn")
    %98 = stablehlo.slice %94 [1:2, 1:2, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %99 = stablehlo.reshape %98 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %100 = stablehlo.slice %97 [1:2, 1:2, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %101 = stablehlo.reshape %100 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %102 = stablehlo.slice %69 [1:2, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.1.attn")
    %103 = stablehlo.composite "tessera.attention" %102, %99, %101, %89 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.1.attn")
    %104 = stablehlo.concatenate %87, %103, dim = 0 : (tensor<1x4x32xf32>, tensor<1x4x32xf32>) -> tensor<2x4x32xf32> loc("layer.1.attn")
    %105 = stablehlo.reshape %104 : (tensor<2x4x32xf32>) -> tensor<2x128xf32> loc("layer.1.attn")
    %106 = stablehlo.composite "tessera.linear" %105, %arg18 {decomposition = @tessera.linear.2} : (tensor<2x128xf32>, tensor<64x128xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %107 = stablehlo.add %59, %106 : tensor<2x64xf32> loc("layer.1.attn")
    %108 = stablehlo.composite "tessera.rms_norm" %107, %arg19 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.1.mlp")
    %109 = stablehlo.composite "tessera.gated_mlp" %108, %arg20, %arg21, %arg22 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.1.mlp")
    %110 = stablehlo.add %107, %109 : tensor<2x64xf32> loc("layer.1.mlp")
    %111 = stablehlo.composite "tessera.rms_norm" %110, %arg23 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %112 = stablehlo.composite "tessera.linear" %111, %arg24 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<128x64xf32>) -> tensor<2x128xf32> loc("layer.2.attn")
    %113 = stablehlo.reshape %112 : (tensor<2x128xf32>) -> tensor<2x4x32xf32> loc("layer.2.attn")
    %114 = stablehlo.composite "tessera.linear" %111, %arg25 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %115 = stablehlo.reshape %114 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.2.attn")
    %116 = stablehlo.composite "tessera.linear" %111, %arg26 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %117 = stablehlo.reshape %116 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.2.attn")
    %118 = stablehlo.composite "tessera.rms_norm" %113, %arg27 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<2x4x32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32> loc("layer.2.attn")
    %119 = stablehlo.composite "tessera.rms_norm" %115, %arg28 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<2x2x32xf32>, tensor<32xf32>) -> tensor<2x2x32xf32> loc("layer.2.attn")
    %120 = stablehlo.composite "tessera.rope" %118, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x4x32xf32> loc("layer.2.attn")
    %121 = stablehlo.composite "tessera.rope" %119, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x2x32xf32> loc("layer.2.attn")
    %122 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %123 = stablehlo.slice %arg38 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.2.attn")
    %124 = stablehlo.reshape %123 : (tensor<1xi32>) -> tensor<i32> loc("layer.2.attn")
    %125 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %126 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %127 = stablehlo.slice %121 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.2.attn")
    %128 = stablehlo.reshape %127 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.2.attn")
    %129 = stablehlo.dynamic_update_slice %94, %128, %125, %126, %124, %122, %122 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.2.attn")
    %130 = stablehlo.slice %117 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.2.attn")
    %131 = stablehlo.reshape %130 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.2.attn")
    %132 = stablehlo.dynamic_update_slice %97, %131, %125, %126, %124, %122, %122 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.2.attn")
    %133 = stablehlo.slice %129 [0:1, 2:3, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %134 = stablehlo.reshape %133 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %135 = stablehlo.slice %132 [0:1, 2:3, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %136 = stablehlo.reshape %135 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %137 = stablehlo.slice %120 [0:1, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.2.attn")
    %138 = stablehlo.composite "tessera.attention" %137, %134, %136, %124 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.2.attn")
    %139 = stablehlo.slice %arg38 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.2.attn")
    %140 = stablehlo.reshape %139 : (tensor<1xi32>) -> tensor<i32> loc("layer.2.attn")
    %141 = stablehlo.constant dense<1> : tensor<i32> loc("layer.2.attn")
    %142 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %143 = stablehlo.slice %121 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.2.attn")
    %144 = stablehlo.reshape %143 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.2.attn")
    %145 = stablehlo.dynamic_update_slice %129, %144, %141, %142, %140, %122, %122 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.2.attn")
    %146 = stablehlo.slice %117 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.2.attn")
    %147 = stablehlo.reshape %146 : (tensor<1x2x32xf32>) -> tensor<1x1x1x2x32xf32> loc("layer.2.attn")
    %148 = stablehlo.dynamic_update_slice %132, %147, %141, %142, %140, %122, %122 : (tensor<2x3x32x2x32xf32>, tensor<1x1x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.2.attn")
    %149 = stablehlo.slice %145 [1:2, 2:3, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %150 = stablehlo.reshape %149 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %151 = stablehlo.slice %148 [1:2, 2:3, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %152 = stablehlo.reshape %151 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %153 = stablehlo.slice %120 [1:2, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.2.attn")
    %154 = stablehlo.composite "tessera.attention" %153, %150, %152, %140 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.2.attn")
    %155 = stablehlo.concatenate %138, %154, dim = 0 : (tensor<1x4x32xf32>, tensor<1x4x32xf32>) -> tensor<2x4x32xf32> loc("layer.2.attn")
    %156 = stablehlo.reshape %155 : (tensor<2x4x32xf32>) -> tensor<2x128xf32> loc("layer.2.attn")
    %157 = stablehlo.composite "tessera.linear" %156, %arg29 {decomposition = @tessera.linear.2} : (tensor<2x128xf32>, tensor<64x128xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %158 = stablehlo.add %110, %157 : tensor<2x64xf32> loc("layer.2.attn")
    %159 = stablehlo.composite "tessera.rms_norm" %158, %arg30 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.2.mlp")
    %160 = stablehlo.composite "tessera.gated_mlp" %159, %arg31, %arg32, %arg33 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.2.mlp")
    %161 = stablehlo.add %158, %160 : tensor<2x64xf32> loc("layer.2.mlp")
    %162 = stablehlo.composite "tessera.rms_norm" %161, %arg34 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("lm_head")
    %163 = stablehlo.composite "tessera.linear" %162, %arg0 {decomposition = @tessera.linear.3} : (tensor<2x64xf32>, tensor<1344x64xf32>) -> tensor<2x1344xf32> loc("lm_head")
    return %163, %145, %148 : tensor<2x1344xf32>, tensor<2x3x32x2x32xf32>, tensor<2x3x32x2x32xf32>
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
