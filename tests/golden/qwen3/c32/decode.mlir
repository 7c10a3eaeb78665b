module @decode_main_c32 {
  func.func public @main(%arg0: tensor<1344x64xf32> {tessera.name = "model.embed_tokens.weight", tessera.role = "weight"}, %arg1: tensor<64xf32> {tessera.name = "model.layers.0.input_layernorm.weight", tessera.role = "weight"}, %arg2: tensor<128x64xf32> {tessera.name = "model.layers.0.self_attn.q_proj.weight", tessera.role = "weight"}, %arg3: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.k_proj.weight", tessera.role = "weight"}, %arg4: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.v_proj.weight", tessera.role = "weight"}, %arg5: tensor<32xf32> {tessera.name = "model.layers.0.self_attn.q_norm.weight", tessera.role = "weight"}, %arg6: tensor<32xf32> {tessera.name = "model.layers.0.self_attn.k_norm.weight", tessera.role = "weight"}, %arg7: tensor<64x128xf32> {tessera.name = "model.layers.0.self_attn.o_proj.weight", tessera.role = "weight"}, %arg8: tensor<64xf32> {tessera.name = "model.layers.0.post_attention_layernorm.weight", tessera.role = "weight"}, %arg9: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.gate_proj.weight", tessera.role = "weight"}, %arg10: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.up_proj.weight", tessera.role = "weight"}, %arg11: tensor<64x160xf32> {tessera.name = "model.layers.0.mlp.down_proj.weight", tessera.role = "weight"}, %arg12: tensor<64xf32> {tessera.name = "model.layers.1.input_layernorm.weight", tessera.role = "weight"}, %arg13: tensor<128x64xf32> {tessera.name = "model.layers.1.self_attn.q_proj.weight", tessera.role = "weight"}, %arg14: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.k_proj.weight", tessera.role = "weight"}, %arg15: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.v_proj.weight", tessera.role = "weight"}, %arg16: tensor<32xf32> {tessera.name = "model.layers.1.self_attn.q_norm.weight", tessera.role = "weight"}, %arg17: tensor<32xf32> {tessera.name = "model.layers.1.self_attn.k_norm.weight", tessera.role = "weight"}, %arg18: tensor<64x128xf32> {tessera.name = "model.layers.1.self_attn.o_proj.weight", tessera.role = "weight"}, %arg19: tensor<64xf32> {tessera.name = "model.layers.1.post_attention_layernorm.weight", tessera.role = "weight"}, %arg20: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.gate_proj.weight", tessera.role = "weight"}, %arg21: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.up_proj.weight", tessera.role = "weight"}, %arg22: tensor<64x160xf32> {tessera.name = "model.layers.1.mlp.down_proj.weight", tessera.role = "weight"}, %arg23: tensor<64xf32> {tessera.name = "model.layers.2.input_layernorm.weight", tessera.role = "weight"}, %arg24: tensor<128x64xf32> {tessera.name = "model.layers.2.self_attn.q_proj.weight", tessera.role = "weight"}, %arg25: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.k_proj.weight", tessera.role = "weight"}, %arg26: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.v_proj.weight", tessera.role = "weight"}, %arg27: tensor<32xf32> {tessera.name = "model.layers.2.self_attn.q_norm.weight", tessera.role = "weight"}, %arg28: tensor<32xf32> {tessera.name = "model.layers.2.self_attn.k_norm.weight", tessera.role = "weight"}, %arg29: tensor<64x128xf32> {tessera.name = "model.layers.2.self_attn.o_proj.weight", tessera.role = "weight"}, %arg30: tensor<64xf32> {tessera.name = "model.layers.2.post_attention_layernorm.weight", tessera.role = "weight"}, %arg31: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.gate_proj.weight", tessera.role = "weight"}, %arg32: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.up_proj.weight", tessera.role = "weight"}, %arg33: tensor<64x160xf32> {tessera.name = "model.layers.2.mlp.down_proj.weight", tessera.role = "weight"}, %arg34: tensor<64xf32> {tessera.name = "model.norm.weight", tessera.role = "weight"}, %arg35: tensor<2xi32> {tessera.name = "tokens", tessera.role = "input"}, %arg36: tensor<2xi32> {tessera.name = "positions", tessera.role = "input"}, %arg37: tensor<2xi32> {tessera.name = "rope_delta", tessera.role = "input"}, %arg38: tensor<2xi32> {tessera.name = "cache_len", tessera.role = "input"}, %arg39: tensor<2x3x32x2x32xf32> {tessera.name = "k", tessera.role = "state"}, %arg40: tensor<2x3x32x2x32xf32> {tessera.name = "v", tessera.role = "state"}) -> (tensor<2x1344xf32>, tensor<2x3x32x2x32xf32>, tensor<2x3x32x2x32xf32>) {
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
    %23 = stablehlo.slice %19 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.0.attn")
    %24 = stablehlo.slice %arg39 [0:1, 0:1, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %25 = stablehlo.reshape %24 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %26 = stablehlo.dynamic_update_slice %25, %23, %22, %20, %20 : (tensor<32x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %27 = stablehlo.slice %15 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.0.attn")
    %28 = stablehlo.slice %arg40 [0:1, 0:1, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %29 = stablehlo.reshape %28 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %30 = stablehlo.dynamic_update_slice %29, %27, %22, %20, %20 : (tensor<32x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %31 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %32 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %33 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %34 = stablehlo.reshape %26 : (tensor<32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %35 = stablehlo.dynamic_update_slice %arg39, %34, %32, %33, %31, %31, %31 : (tensor<2x3x32x2x32xf32>, tensor<1x1x32x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.0.attn")
    %36 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %37 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %38 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %39 = stablehlo.reshape %30 : (tensor<32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %40 = stablehlo.dynamic_update_slice %arg40, %39, %37, %38, %36, %36, %36 : (tensor<2x3x32x2x32xf32>, tensor<1x1x32x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.0.attn")
    %41 = stablehlo.slice %18 [0:1, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.0.attn")
    %42 = stablehlo.composite "tessera.attention" %41, %26, %30, %22 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.0.attn")
    %43 = stablehlo.slice %arg38 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.0.attn")
    %44 = stablehlo.reshape %43 : (tensor<1xi32>) -> tensor<i32> loc("layer.0.attn")
    %45 = stablehlo.slice %19 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.0.attn")
    %46 = stablehlo.slice %35 [1:2, 0:1, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %47 = stablehlo.reshape %46 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %48 = stablehlo.dynamic_update_slice %47, %45, %44, %20, %20 : (tensor<32x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %49 = stablehlo.slice %15 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.0.attn")
    %50 = stablehlo.slice %40 [1:2, 0:1, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %51 = stablehlo.reshape %50 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %52 = stablehlo.dynamic_update_slice %51, %49, %44, %20, %20 : (tensor<32x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %53 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %54 = stablehlo.constant dense<1> : tensor<i32> loc("layer.0.attn")
    %55 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %56 = stablehlo.reshape %48 : (tensor<32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %57 = stablehlo.dynamic_update_slice %35, %56, %54, %55, %53, %53, %53 : (tensor<2x3x32x2x32xf32>, tensor<1x1x32x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.0.attn")
    %58 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %59 = stablehlo.constant dense<1> : tensor<i32> loc("layer.0.attn")
    %60 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %61 = stablehlo.reshape %52 : (tensor<32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.0.attn")
    %62 = stablehlo.dynamic_update_slice %40, %61, %59, %60, %58, %58, %58 : (tensor<2x3x32x2x32xf32>, tensor<1x1x32x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.0.attn")
    %63 = stablehlo.slice %18 [1:2, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.0.attn")
    %64 = stablehlo.composite "tessera.attention" %63, %48, %52, %44 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.0.attn")
    %65 = stablehlo.concatenate %42, %64, dim = 0 : (tensor<1x4x32xf32>, tensor<1x4x32xf32>) -> tensor<2x4x32xf32> loc("layer.0.attn")
    %66 = stablehlo.reshape %65 : (tensor<2x4x32xf32>) -> tensor<2x128xf32> loc("layer.0.attn")
    %67 = stablehlo.composite "tessera.linear" %66, %arg7 {decomposition = @tessera.linear.2} : (tensor<2x128xf32>, tensor<64x128xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %68 = stablehlo.add %8, %67 : tensor<2x64xf32> loc("layer.0.attn")
    %69 = stablehlo.composite "tessera.rms_norm" %68, %arg8 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.0.mlp")
    %70 = stablehlo.composite "tessera.gated_mlp" %69, %arg9, %arg10, %arg11 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.0.mlp")
    %71 = stablehlo.add %68, %70 : tensor<2x64xf32> loc("layer.0.mlp")
    %72 = stablehlo.composite "tessera.rms_norm" %71, %arg12 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %73 = stablehlo.composite "tessera.linear" %72, %arg13 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<128x64xf32>) -> tensor<2x128xf32> loc("layer.1.attn")
    %74 = stablehlo.reshape %73 : (tensor<2x128xf32>) -> tensor<2x4x32xf32> loc("layer.1.attn")
    %75 = stablehlo.composite "tessera.linear" %72, %arg14 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %76 = stablehlo.reshape %75 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.1.attn")
    %77 = stablehlo.composite "tessera.linear" %72, %arg15 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %78 = stablehlo.reshape %77 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.1.attn")
    %79 = stablehlo.composite "tessera.rms_norm" %74, %arg16 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<2x4x32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32> loc("layer.1.attn")
    %80 = stablehlo.composite "tessera.rms_norm" %76, %arg17 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<2x2x32xf32>, tensor<32xf32>) -> tensor<2x2x32xf32> loc("layer.1.attn")
    %81 = stablehlo.composite "tessera.rope" %79, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x4x32xf32> loc("layer.1.attn")
    %82 = stablehlo.composite "tessera.rope" %80, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x2x32xf32> loc("layer.1.attn")
    %83 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %84 = stablehlo.slice %arg38 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.1.attn")
    %85 = stablehlo.reshape %84 : (tensor<1xi32>) -> tensor<i32> loc("layer.1.attn")
    %86 = stablehlo.slice %82 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.1.attn")
    %87 = stablehlo.slice %57 [0:1, 1:2, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %88 = stablehlo.reshape %87 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %89 = stablehlo.dynamic_update_slice %88, %86, %85, %83, %83 : (tensor<32x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %90 = stablehlo.slice %78 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.1.attn")
    %91 = stablehlo.slice %62 [0:1, 1:2, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %92 = stablehlo.reshape %91 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %93 = stablehlo.dynamic_update_slice %92, %90, %85, %83, %83 : (tensor<32x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %94 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %95 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %96 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %97 = stablehlo.reshape %89 : (tensor<32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %98 = stablehlo.dynamic_update_slice %57, %97, %95, %96, %94, %94, %94 : (tensor<2x3x32x2x32xf32>, tensor<1x1x32x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.1.attn")
    %99 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %100 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %101 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %102 = stablehlo.reshape %93 : (tensor<32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %103 = stablehlo.dynamic_update_slice %62, %102, %100, %101, %99, %99, %99 : (tensor<2x3x32x2x32xf32>, tensor<1x1x32x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.1.attn")
    %104 = stablehlo.slice %81 [0:1, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.1.attn")
    %105 = stablehlo.composite "tessera.attention" %104, %89, %93, %85 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.1.attn")
    %106 = stablehlo.slice %arg38 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.1.attn")
    %107 = stablehlo.reshape %106 : (tensor<1xi32>) -> tensor<i32> loc("layer.1.attn")
    %108 = stablehlo.slice %82 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.1.attn")
    %109 = stablehlo.slice %98 [1:2, 1:2, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %110 = stablehlo.reshape %109 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %111 = stablehlo.dynamic_update_slice %110, %108, %107, %83, %83 : (tensor<32x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %112 = stablehlo.slice %78 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.1.attn")
    %113 = stablehlo.slice %103 [1:2, 1:2, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %114 = stablehlo.reshape %113 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %115 = stablehlo.dynamic_update_slice %114, %112, %107, %83, %83 : (tensor<32x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %116 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %117 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %118 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %119 = stablehlo.reshape %111 : (tensor<32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %120 = stablehlo.dynamic_update_slice %98, %119, %117, %118, %116, %116, %116 : (tensor<2x3x32x2x32xf32>, tensor<1x1x32x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.1.attn")
    %121 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %122 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %123 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %124 = stablehlo.reshape %115 : (tensor<32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.1.attn")
    %125 = stablehlo.dynamic_update_slice %103, %124, %122, %123, %121, %121, %121 : (tensor<2x3x32x2x32xf32>, tensor<1x1x32x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.1.attn")
    %126 = stablehlo.slice %81 [1:2, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.1.attn")
    %127 = stablehlo.composite "tessera.attention" %126, %111, %115, %107 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.1.attn")
    %128 = stablehlo.concatenate %105, %127, dim = 0 : (tensor<1x4x32xf32>, tensor<1x4x32xf32>) -> tensor<2x4x32xf32> loc("layer.1.attn")
    %129 = stablehlo.reshape %128 : (tensor<2x4x32xf32>) -> tensor<2x128xf32> loc("layer.1.attn")
    %130 = stablehlo.composite "tessera.linear" %129, %arg18 {decomposition = @tessera.linear.2} : (tensor<2x128xf32>, tensor<64x128xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %131 = stablehlo.add %71, %130 : tensor<2x64xf32> loc("layer.1.attn")
    %132 = stablehlo.composite "tessera.rms_norm" %131, %arg19 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.1.mlp")
    %133 = stablehlo.composite "tessera.gated_mlp" %132, %arg20, %arg21, %arg22 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.1.mlp")
    %134 = stablehlo.add %131, %133 : tensor<2x64xf32> loc("layer.1.mlp")
    %135 = stablehlo.composite "tessera.rms_norm" %134, %arg23 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %136 = stablehlo.composite "tessera.linear" %135, %arg24 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<128x64xf32>) -> tensor<2x128xf32> loc("layer.2.attn")
    %137 = stablehlo.reshape %136 : (tensor<2x128xf32>) -> tensor<2x4x32xf32> loc("layer.2.attn")
    %138 = stablehlo.composite "tessera.linear" %135, %arg25 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %139 = stablehlo.reshape %138 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.2.attn")
    %140 = stablehlo.composite "tessera.linear" %135, %arg26 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %141 = stablehlo.reshape %140 : (tensor<2x64xf32>) -> tensor<2x2x32xf32> loc("layer.2.attn")
    %142 = stablehlo.composite "tessera.rms_norm" %137, %arg27 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<2x4x32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32> loc("layer.2.attn")
    %143 = stablehlo.composite "tessera.rms_norm" %139, %arg28 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<2x2x32xf32>, tensor<32xf32>) -> tensor<2x2x32xf32> loc("layer.2.attn")
    %144 = stablehlo.composite "tessera.rope" %142, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x4x32xf32> loc("layer.2.attn")
    %145 = stablehlo.composite "tessera.rope" %143, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x32xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x2x32xf32> loc("layer.2.attn")
    %146 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %147 = stablehlo.slice %arg38 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.2.attn")
    %148 = stablehlo.reshape %147 : (tensor<1xi32>) -> tensor<i32> loc("layer.2.attn")
    %149 = stablehlo.slice %145 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.2.attn")
    %150 = stablehlo.slice %120 [0:1, 2:3, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %151 = stablehlo.reshape %150 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %152 = stablehlo.dynamic_update_slice %151, %149, %148, %146, %146 : (tensor<32x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %153 = stablehlo.slice %141 [0:1, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.2.attn")
    %154 = stablehlo.slice %125 [0:1, 2:3, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %155 = stablehlo.reshape %154 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %156 = stablehlo.dynamic_update_slice %155, %153, %148, %146, %146 : (tensor<32x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %157 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %158 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %159 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %160 = stablehlo.reshape %152 : (tensor<32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %161 = stablehlo.dynamic_update_slice %120, %160, %158, %159, %157, %157, %157 : (tensor<2x3x32x2x32xf32>, tensor<1x1x32x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.2.attn")
    %162 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %163 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %164 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %165 = stablehlo.reshape %156 : (tensor<32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %166 = stablehlo.dynamic_update_slice %125, %165, %163, %164, %162, %162, %162 : (tensor<2x3x32x2x32xf32>, tensor<1x1x32x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.2.attn")
    %167 = stablehlo.slice %144 [0:1, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.2.attn")
    %168 = stablehlo.composite "tessera.attention" %167, %152, %156, %148 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.2.attn")
    %169 = stablehlo.slice %arg38 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.2.attn")
    %170 = stablehlo.reshape %169 : (tensor<1xi32>) -> tensor<i32> loc("layer.2.attn")
    %171 = stablehlo.slice %145 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.2.attn")
    %172 = stablehlo.slice %161 [1:2, 2:3, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %173 = stablehlo.reshape %172 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %174 = stablehlo.dynamic_update_slice %173, %171, %170, %146, %146 : (tensor<32x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %175 = stablehlo.slice %141 [1:2, 0:2, 0:32] : (tensor<2x2x32xf32>) -> tensor<1x2x32xf32> loc("layer.2.attn")
    %176 = stablehlo.slice %166 [1:2, 2:3, 0:32, 0:2, 0:32] : (tensor<2x3x32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %177 = stablehlo.reshape %176 : (tensor<1x1x32x2x32xf32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %178 = stablehlo.dynamic_update_slice %177, %175, %170, %146, %146 : (tensor<32x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %179 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %180 = stablehlo.constant dense<1> : tensor<i32> loc("layer.2.attn")
    %181 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %182 = stablehlo.reshape %174 : (tensor<32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %183 = stablehlo.dynamic_update_slice %161, %182, %180, %181, %179, %179, %179 : (tensor<2x3x32x2x32xf32>, tensor<1x1x32x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.2.attn")
    %184 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %185 = stablehlo.constant dense<1> : tensor<i32> loc("layer.2.attn")
    %186 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %187 = stablehlo.reshape %178 : (tensor<32x2x32xf32>) -> tensor<1x1x32x2x32xf32> loc("layer.2.attn")
    %188 = stablehlo.dynamic_update_slice %166, %187, %185, %186, %184, %184, %184 : (tensor<2x3x32x2x32xf32>, tensor<1x1x32x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x32xf32> loc("layer.2.attn")
    %189 = stablehlo.slice %144 [1:2, 0:4, 0:32] : (tensor<2x4x32xf32>) -> tensor<1x4x32xf32> loc("layer.2.attn")
    %190 = stablehlo.composite "tessera.attention" %189, %174, %178, %170 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x32xf32>, tensor<32x2x32xf32>, tensor<32x2x32xf32>, tensor<i32>) -> tensor<1x4x32xf32> loc("layer.2.attn")
    %191 = stablehlo.concatenate %168, %190, dim = 0 : (tensor<1x4x32xf32>, tensor<1x4x32xf32>) -> tensor<2x4x32xf32> loc("layer.2.attn")
    %192 = stablehlo.reshape %191 : (tensor<2x4x32xf32>) -> tensor<2x128xf32> loc("layer.2.attn")
    %193 = stablehlo.composite "tessera.linear" %192, %arg29 {decomposition = @tessera.linear.2} : (tensor<2x128xf32>, tensor<64x128xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %194 = stablehlo.add %134, %193 : tensor<2x64xf32> loc("layer.2.attn")
    %195 = stablehlo.composite "tessera.rms_norm" %194, %arg30 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.2.mlp")
    %196 = stablehlo.composite "tessera.gated_mlp" %195, %arg31, %arg32, %arg33 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.2.mlp")
    %197 = stablehlo.add %194, %196 : tensor<2x64xf32> loc("layer.2.mlp")
    %198 = stablehlo.composite "tessera.rms_norm" %197, %arg34 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("lm_head")
    %199 = stablehlo.composite "tessera.linear" %198, %arg0 {decomposition = @tessera.linear.3} : (tensor<2x64xf32>, tensor<1344x64xf32>) -> tensor<2x1344xf32> loc("lm_head")
    return %199, %183, %188 : tensor<2x1344xf32>, tensor<2x3x32x2x32xf32>, tensor<2x3x32x2x32xf32>
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
