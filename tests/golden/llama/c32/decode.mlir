module @decode_main_c32 {
  func.func public @main(%arg0: tensor<1344x64xf32> {tessera.name = "model.embed_tokens.weight", tessera.role = "weight"}, %arg1: tensor<64xf32> {tessera.name = "model.layers.0.input_layernorm.weight", tessera.role = "weight"}, %arg2: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.q_proj.weight", tessera.role = "weight"}, %arg3: tensor<32x64xf32> {tessera.name = "model.layers.0.self_attn.k_proj.weight", tessera.role = "weight"}, %arg4: tensor<32x64xf32> {tessera.name = "model.layers.0.self_attn.v_proj.weight", tessera.role = "weight"}, %arg5: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.o_proj.weight", tessera.role = "weight"}, %arg6: tensor<64xf32> {tessera.name = "model.layers.0.post_attention_layernorm.weight", tessera.role = "weight"}, %arg7: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.gate_proj.weight", tessera.role = "weight"}, %arg8: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.up_proj.weight", tessera.role = "weight"}, %arg9: tensor<64x160xf32> {tessera.name = "model.layers.0.mlp.down_proj.weight", tessera.role = "weight"}, %arg10: tensor<64xf32> {tessera.name = "model.layers.1.input_layernorm.weight", tessera.role = "weight"}, %arg11: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.q_proj.weight", tessera.role = "weight"}, %arg12: tensor<32x64xf32> {tessera.name = "model.layers.1.self_attn.k_proj.weight", tessera.role = "weight"}, %arg13: tensor<32x64xf32> {tessera.name = "model.layers.1.self_attn.v_proj.weight", tessera.role = "weight"}, %arg14: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.o_proj.weight", tessera.role = "weight"}, %arg15: tensor<64xf32> {tessera.name = "model.layers.1.post_attention_layernorm.weight", tessera.role = "weight"}, %arg16: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.gate_proj.weight", tessera.role = "weight"}, %arg17: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.up_proj.weight", tessera.role = "weight"}, %arg18: tensor<64x160xf32> {tessera.name = "model.layers.1.mlp.down_proj.weight", tessera.role = "weight"}, %arg19: tensor<64xf32> {tessera.name = "model.layers.2.input_layernorm.weight", tessera.role = "weight"}, %arg20: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.q_proj.weight", tessera.role = "weight"}, %arg21: tensor<32x64xf32> {tessera.name = "model.layers.2.self_attn.k_proj.weight", tessera.role = "weight"}, %arg22: tensor<32x64xf32> {tessera.name = "model.layers.2.self_attn.v_proj.weight", tessera.role = "weight"}, %arg23: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.o_proj.weight", tessera.role = "weight"}, %arg24: tensor<64xf32> {tessera.name = "model.layers.2.post_attention_layernorm.weight", tessera.role = "weight"}, %arg25: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.gate_proj.weight", tessera.role = "weight"}, %arg26: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.up_proj.weight", tessera.role = "weight"}, %arg27: tensor<64x160xf32> {tessera.name = "model.layers.2.mlp.down_proj.weight", tessera.role = "weight"}, %arg28: tensor<64xf32> {tessera.name = "model.norm.weight", tessera.role = "weight"}, %arg29: tensor<2xi32> {tessera.name = "tokens", tessera.role = "input"}, %arg30: tensor<2xi32> {tessera.name = "positions", tessera.role = "input"}, %arg31: tensor<2xi32> {tessera.name = "rope_delta", tessera.role = "input"}, %arg32: tensor<2xi32> {tessera.name = "cache_len", tessera.role = "input"}, %arg33: tensor<2x3x32x2x16xf32> {tessera.name = "k", tessera.role = "state", tf.aliasing_output = 1 : i32}, %arg34: tensor<2x3x32x2x16xf32> {tessera.name = "v", tessera.role = "state", tf.aliasing_output = 2 : i32}) -> (tensor<2x1344xf32>, tensor<2x3x32x2x16xf32>, tensor<2x3x32x2x16xf32>) {
    %0 = stablehlo.add %arg30, %arg31 : tensor<2xi32> loc("rope")
    %1 = stablehlo.constant dense<"0x0000803FB093463EC8081A3D4FF7EE3B2036E139F8C80F37C410DF35A707AD34"> : tensor<8xf32> loc("rope")
    %2 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<8xf32>) -> tensor<2x8xf32> loc("rope")
    %3 = stablehlo.convert %0 : (tensor<2xi32>) -> tensor<2xf32> loc("rope")
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<2xf32>) -> tensor<2x8xf32> loc("rope")
    %5 = stablehlo.multiply %4, %2 : tensor<2x8xf32> loc("rope")
    %6 = stablehlo.cosine %5 : tensor<2x8xf32> loc("rope")
    %7 = stablehlo.sine %5 : tensor<2x8xf32> loc("rope")
    %8 = stablehlo.composite "tessera.embedding" %arg0, %arg29 {decomposition = @tessera.embedding.0} : (tensor<1344x64xf32>, tensor<2xi32>) -> tensor<2x64xf32> loc("embed_tokens")
    %9 = stablehlo.composite "tessera.rms_norm" %8, %arg1 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %10 = stablehlo.composite "tessera.linear" %9, %arg2 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %11 = stablehlo.reshape %10 : (tensor<2x64xf32>) -> tensor<2x4x16xf32> loc("layer.0.attn")
    %12 = stablehlo.composite "tessera.linear" %9, %arg3 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<32x64xf32>) -> tensor<2x32xf32> loc("layer.0.attn")
    %13 = stablehlo.reshape %12 : (tensor<2x32xf32>) -> tensor<2x2x16xf32> loc("layer.0.attn")
    %14 = stablehlo.composite "tessera.linear" %9, %arg4 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<32x64xf32>) -> tensor<2x32xf32> loc("layer.0.attn")
    %15 = stablehlo.reshape %14 : (tensor<2x32xf32>) -> tensor<2x2x16xf32> loc("layer.0.attn")
    %16 = stablehlo.composite "tessera.rope" %11, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x4x16xf32> loc("layer.0.attn")
    %17 = stablehlo.composite "tessera.rope" %13, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x2x16xf32> loc("layer.0.attn")
    %18 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %19 = stablehlo.slice %arg32 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.0.attn")
    %20 = stablehlo.reshape %19 : (tensor<1xi32>) -> tensor<i32> loc("layer.0.attn")
    %21 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %22 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %23 = stablehlo.slice %17 [0:1, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.0.attn")
    %24 = stablehlo.reshape %23 : (tensor<1x2x16xf32>) -> tensor<1x1x1x2x16xf32> loc("layer.0.attn")
    %25 = stablehlo.dynamic_update_slice %arg33, %24, %21, %22, %20, %18, %18 : (tensor<2x3x32x2x16xf32>, tensor<1x1x1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.0.attn")
    %26 = stablehlo.slice %15 [0:1, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.0.attn")
    %27 = stablehlo.reshape %26 : (tensor<1x2x16xf32>) -> tensor<1x1x1x2x16xf32> loc("layer.0.attn")
    %28 = stablehlo.dynamic_update_slice %arg34, %27, %21, %22, %20, %18, %18 : (tensor<2x3x32x2x16xf32>, tensor<1x1x1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.0.attn")
    %29 = stablehlo.slice %25 [0:1, 0:1, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.0.attn")
    %30 = stablehlo.reshape %29 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %31 = stablehlo.slice %28 [0:1, 0:1, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.0.attn")
    %32 = stablehlo.reshape %31 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %33 = stablehlo.slice %16 [0:1, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32> loc("layer.0.attn")
    %34 = stablehlo.composite "tessera.attention" %33, %30, %32, %20 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x16xf32>, tensor<32x2x16xf32>, tensor<32x2x16xf32>, tensor<i32>) -> tensor<1x4x16xf32> loc("layer.0.attn")
    %35 = stablehlo.slice %arg32 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.0.attn")
    %36 = stablehlo.reshape %35 : (tensor<1xi32>) -> tensor<i32> loc("layer.0.attn")
    %37 = stablehlo.constant dense<1> : tensor<i32> loc("layer.0.attn")
    %38 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %39 = stablehlo.slice %17 [1:2, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.0.attn")
    %40 = stablehlo.reshape %39 : (tensor<1x2x16xf32>) -> tensor<1x1x1x2x16xf32> loc("layer.0.attn")
    %41 = stablehlo.dynamic_update_slice %25, %40, %37, %38, %36, %18, %18 : (tensor<2x3x32x2x16xf32>, tensor<1x1x1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.0.attn")
    %42 = stablehlo.slice %15 [1:2, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.0.attn")
    %43 = stablehlo.reshape %42 : (tensor<1x2x16xf32>) -> tensor<1x1x1x2x16xf32> loc("layer.0.attn")
    %44 = stablehlo.dynamic_update_slice %28, %43, %37, %38, %36, %18, %18 : (tensor<2x3x32x2x16xf32>, tensor<1x1x1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.0.attn")
    %45 = stablehlo.slice %41 [1:2, 0:1, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.0.attn")
    %46 = stablehlo.reshape %45 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %47 = stablehlo.slice %44 [1:2, 0:1, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.0.attn")
    %48 = stablehlo.reshape %47 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %49 = stablehlo.slice %16 [1:2, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32> loc("layer.0.attn")
    %50 = stablehlo.composite "tessera.attention" %49, %46, %48, %36 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x16xf32>, tensor<32x2x16xf32>, tensor<32x2x16xf32>, tensor<i32>) -> tensor<1x4x16xf32> loc("layer.0.attn")
    %51 = stablehlo.concatenate %34, %50, dim = 0 : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<2x4x16xf32> loc("layer.0.attn")
    %52 = stablehlo.reshape %51 : (tensor<2x4x16xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %53 = stablehlo.composite "tessera.linear" %52, %arg5 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %54 = stablehlo.add %8, %53 : tensor<2x64xf32> loc("layer.0.attn")
    %55 = stablehlo.composite "tessera.rms_norm" %54, %arg6 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.0.mlp")
    %56 = stablehlo.composite "tessera.gated_mlp" %55, %arg7, %arg8, %arg9 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.0.mlp")
    %57 = stablehlo.add %54, %56 : tensor<2x64xf32> loc("layer.0.mlp")
    %58 = stablehlo.composite "tessera.rms_norm" %57, %arg10 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %59 = stablehlo.composite "tessera.linear" %58, %arg11 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %60 = stablehlo.reshape %59 : (tensor<2x64xf32>) -> tensor<2x4x16xf32> loc("layer.1.attn")
    %61 = stablehlo.composite "tessera.linear" %58, %arg12 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<32x64xf32>) -> tensor<2x32xf32> loc("layer.1.attn")
    %62 = stablehlo.reshape %61 : (tensor<2x32xf32>) -> tensor<2x2x16xf32> loc("layer.1.attn")
    %63 = stablehlo.composite "tessera.linear" %58, %arg13 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<32x64xf32>) -> tensor<2x32xf32> loc("layer.1.attn")
    %64 = stablehlo.reshape %63 : (tensor<2x32xf32>) -> tensor<2x2x16xf32> loc("layer.1.attn")
    %65 = stablehlo.composite "tessera.rope" %60, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x4x16xf32> loc("layer.1.attn")
    %66 = stablehlo.composite "tessera.rope" %62, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x2x16xf32> loc("layer.1.attn")
    %67 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %68 = stablehlo.slice %arg32 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.1.attn")
    %69 = stablehlo.reshape %68 : (tensor<1xi32>) -> tensor<i32> loc("layer.1.attn")
    %70 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %71 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %72 = stablehlo.slice %66 [0:1, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.1.attn")
    %73 = stablehlo.reshape %72 : (tensor<1x2x16xf32>) -> tensor<1x1x1x2x16xf32> loc("layer.1.attn")
    %74 = stablehlo.dynamic_update_slice %41, %73, %70, %71, %69, %67, %67 : (tensor<2x3x32x2x16xf32>, tensor<1x1x1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.1.attn")
    %75 = stablehlo.slice %64 [0:1, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.1.attn")
    %76 = stablehlo.reshape %75 : (tensor<1x2x16xf32>) -> tensor<1x1x1x2x16xf32> loc("layer.1.attn")
    %77 = stablehlo.dynamic_update_slice %44, %76, %70, %71, %69, %67, %67 : (tensor<2x3x32x2x16xf32>, tensor<1x1x1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.1.attn")
    %78 = stablehlo.slice %74 [0:1, 1:2, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.1.attn")
    %79 = stablehlo.reshape %78 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %80 = stablehlo.slice %77 [0:1, 1:2, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.1.attn")
    %81 = stablehlo.reshape %80 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %82 = stablehlo.slice %65 [0:1, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32> loc("layer.1.attn")
    %83 = stablehlo.composite "tessera.attention" %82, %79, %81, %69 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x16xf32>, tensor<32x2x16xf32>, tensor<32x2x16xf32>, tensor<i32>) -> tensor<1x4x16xf32> loc("layer.1.attn")
    %84 = stablehlo.slice %arg32 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.1.attn")
    %85 = stablehlo.reshape %84 : (tensor<1xi32>) -> tensor<i32> loc("layer.1.attn")
    %86 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %87 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %88 = stablehlo.slice %66 [1:2, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.1.attn")
    %89 = stablehlo.reshape %88 : (tensor<1x2x16xf32>) -> tensor<1x1x1x2x16xf32> loc("layer.1.attn")
    %90 = stablehlo.dynamic_update_slice %74, %89, %86, %87, %85, %67, %67 : (tensor<2x3x32x2x16xf32>, tensor<1x1x1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.1.attn")
    %91 = stablehlo.slice %64 [1:2, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.1.attn")
    %92 = stablehlo.reshape %91 : (tensor<1x2x16xf32>) -> tensor<1x1x1x2x16xf32> loc("layer.1.attn")
    %93 = stablehlo.dynamic_update_slice %77, %92, %86, %87, %85, %67, %67 : (tensor<2x3x32x2x16xf32>, tensor<1x1x1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.1.attn")
    %94 = stablehlo.slice %90 [1:2, 1:2, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.1.attn")
    %95 = stablehlo.reshape %94 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %96 = stablehlo.slice %93 [1:2, 1:2, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.1.attn")
    %97 = stablehlo.reshape %96 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %98 = stablehlo.slice %65 [1:2, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32> loc("layer.1.attn")
    %99 = stablehlo.composite "tessera.attention" %98, %95, %97, %85 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x16xf32>, tensor<32x2x16xf32>, tensor<32x2x16xf32>, tensor<i32>) -> tensor<1x4x16xf32> loc("layer.1.attn")
    %100 = stablehlo.concatenate %83, %99, dim = 0 : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<2x4x16xf32> loc("layer.1.attn")
    %101 = stablehlo.reshape %100 : (tensor<2x4x16xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %102 = stablehlo.composite "tessera.linear" %101, %arg14 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %103 = stablehlo.add %57, %102 : tensor<2x64xf32> loc("layer.1.attn")
    %104 = stablehlo.composite "tessera.rms_norm" %103, %arg15 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.1.mlp")
    %105 = stablehlo.composite "tessera.gated_mlp" %104, %arg16, %arg17, %arg18 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.1.mlp")
    %106 = stablehlo.add %103, %105 : tensor<2x64xf32> loc("layer.1.mlp")
    %107 = stablehlo.composite "tessera.rms_norm" %106, %arg19 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %108 = stablehlo.composite "tessera.linear" %107, %arg20 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %109 = stablehlo.reshape %108 : (tensor<2x64xf32>) -> tensor<2x4x16xf32> loc("layer.2.attn")
    %110 = stablehlo.composite "tessera.linear" %107, %arg21 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<32x64xf32>) -> tensor<2x32xf32> loc("layer.2.attn")
    %111 = stablehlo.reshape %110 : (tensor<2x32xf32>) -> tensor<2x2x16xf32> loc("layer.2.attn")
    %112 = stablehlo.composite "tessera.linear" %107, %arg22 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<32x64xf32>) -> tensor<2x32xf32> loc("layer.2.attn")
    %113 = stablehlo.reshape %112 : (tensor<2x32xf32>) -> tensor<2x2x16xf32> loc("layer.2.attn")
    %114 = stablehlo.composite "tessera.rope" %109, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x4x16xf32> loc("layer.2.attn")
    %115 = stablehlo.composite "tessera.rope" %111, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x2x16xf32> loc("layer.2.attn")
    %116 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %117 = stablehlo.slice %arg32 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.2.attn")
    %118 = stablehlo.reshape %117 : (tensor<1xi32>) -> tensor<i32> loc("layer.2.attn")
    %119 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %120 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %121 = stablehlo.slice %115 [0:1, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.2.attn")
    %122 = stablehlo.reshape %121 : (tensor<1x2x16xf32>) -> tensor<1x1x1x2x16xf32> loc("layer.2.attn")
    %123 = stablehlo.dynamic_update_slice %90, %122, %119, %120, %118, %116, %116 : (tensor<2x3x32x2x16xf32>, tensor<1x1x1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.2.attn")
    %124 = stablehlo.slice %113 [0:1, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.2.attn")
    %125 = stablehlo.reshape %124 : (tensor<1x2x16xf32>) -> tensor<1x1x1x2x16xf32> loc("layer.2.attn")
    %126 = stablehlo.dynamic_update_slice %93, %125, %119, %120, %118, %116, %116 : (tensor<2x3x32x2x16xf32>, tensor<1x1x1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.2.attn")
    %127 = stablehlo.slice %123 [0:1, 2:3, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.2.attn")
    %128 = stablehlo.reshape %127 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %129 = stablehlo.slice %126 [0:1, 2:3, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.2.attn")
    %130 = stablehlo.reshape %129 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %131 = stablehlo.slice %114 [0:1, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32> loc("layer.2.attn")
    %132 = stablehlo.composite "tessera.attention" %131, %128, %130, %118 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x16xf32>, tensor<32x2x16xf32>, tensor<32x2x16xf32>, tensor<i32>) -> tensor<1x4x16xf32> loc("layer.2.attn")
    %133 = stablehlo.slice %arg32 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.2.attn")
    %134 = stablehlo.reshape %133 : (tensor<1xi32>) -> tensor<i32> loc("layer.2.attn")
    %135 = stablehlo.constant dense<1> : tensor<i32> loc("layer.2.attn")
    %136 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %137 = stablehlo.slice %115 [1:2, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.2.attn")
    %138 = stablehlo.reshape %137 : (tensor<1x2x16xf32>) -> tensor<1x1x1x2x16xf32> loc("layer.2.attn")
    %139 = stablehlo.dynamic_update_slice %123, %138, %135, %136, %134, %116, %116 : (tensor<2x3x32x2x16xf32>, tensor<1x1x1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.2.attn")
    %140 = stablehlo.slice %113 [1:2, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.2.attn")
    %141 = stablehlo.reshape %140 : (tensor<1x2x16xf32>) -> tensor<1x1x1x2x16xf32> loc("layer.2.attn")
    %142 = stablehlo.dynamic_update_slice %126, %141, %135, %136, %134, %116, %116 : (tensor<2x3x32x2x16xf32>, tensor<1x1x1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.2.attn")
    %143 = stablehlo.slice %139 [1:2, 2:3, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.2.attn")
    %144 = stablehlo.reshape %143 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %145 = stablehlo.slice %142 [1:2, 2:3, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.2.attn")
    %146 = stablehlo.reshape %145 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %147 = stablehlo.slice %114 [1:2, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32> loc("layer.2.attn")
    %148 = stablehlo.composite "tessera.attention" %147, %144, %146, %134 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x16xf32>, tensor<32x2x16xf32>, tensor<32x2x16xf32>, tensor<i32>) -> tensor<1x4x16xf32> loc("layer.2.attn")
    %149 = stablehlo.concatenate %132, %148, dim = 0 : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<2x4x16xf32> loc("layer.2.attn")
    %150 = stablehlo.reshape %149 : (tensor<2x4x16xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %151 = stablehlo.composite "tessera.linear" %150, %arg23 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %152 = stablehlo.add %106, %151 : tensor<2x64xf32> loc("layer.2.attn")
    %153 = stablehlo.composite "tessera.rms_norm" %152, %arg24 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.2.mlp")
    %154 = stablehlo.composite "tessera.gated_mlp" %153, %arg25, %arg26, %arg27 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.2.mlp")
    %155 = stablehlo.add %152, %154 : tensor<2x64xf32> loc("layer.2.mlp")
    %156 = stablehlo.composite "tessera.rms_norm" %155, %arg28 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("lm_head")
    %157 = stablehlo.composite "tessera.linear" %156, %arg0 {decomposition = @tessera.linear.2} : (tensor<2x64xf32>, tensor<1344x64xf32>) -> tensor<2x1344xf32> loc("lm_head")
    return %157, %139, %142 : tensor<2x1344xf32>, tensor<2x3x32x2x16xf32>, tensor<2x3x32x2x16xf32>
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
    %8 = stablehlo.constant dense<0x3727C5AC> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<2x64xf32>
    %10 = stablehlo.add %7, %9 : tensor<2x64xf32>
    %11 = stablehlo.rsqrt %10 : tensor<2x64xf32>
    %12 = stablehlo.multiply %arg0, %11 : tensor<2x64xf32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<2x64xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<2x64xf32>
    return %14 : tensor<2x64xf32>
  }
  func.func private @tessera.linear.0(%arg0: tensor<2x64xf32>, %arg1: tensor<64x64xf32>) -> tensor<2x64xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32>
    return %0 : tensor<2x64xf32>
  }
  func.func private @tessera.linear.1(%arg0: tensor<2x64xf32>, %arg1: tensor<32x64xf32>) -> tensor<2x32xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<2x64xf32>, tensor<32x64xf32>) -> tensor<2x32xf32>
    return %0 : tensor<2x32xf32>
  }
  func.func private @tessera.rope.0(%arg0: tensor<2x4x16xf32>, %arg1: tensor<2x8xf32>, %arg2: tensor<2x8xf32>) -> tensor<2x4x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<2x8xf32>) -> tensor<2x4x8xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0, 2] : (tensor<2x8xf32>) -> tensor<2x4x8xf32>
    %2 = stablehlo.slice %arg0 [0:2, 0:4, 0:8] : (tensor<2x4x16xf32>) -> tensor<2x4x8xf32>
    %3 = stablehlo.slice %arg0 [0:2, 0:4, 8:16] : (tensor<2x4x16xf32>) -> tensor<2x4x8xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<2x4x8xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<2x4x8xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<2x4x8xf32>
    %7 = stablehlo.multiply %2, %1 : tensor<2x4x8xf32>
    %8 = stablehlo.multiply %3, %0 : tensor<2x4x8xf32>
    %9 = stablehlo.add %8, %7 : tensor<2x4x8xf32>
    %10 = stablehlo.concatenate %6, %9, dim = 2 : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x16xf32>
    return %10 : tensor<2x4x16xf32>
  }
  func.func private @tessera.rope.1(%arg0: tensor<2x2x16xf32>, %arg1: tensor<2x8xf32>, %arg2: tensor<2x8xf32>) -> tensor<2x2x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<2x8xf32>) -> tensor<2x2x8xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0, 2] : (tensor<2x8xf32>) -> tensor<2x2x8xf32>
    %2 = stablehlo.slice %arg0 [0:2, 0:2, 0:8] : (tensor<2x2x16xf32>) -> tensor<2x2x8xf32>
    %3 = stablehlo.slice %arg0 [0:2, 0:2, 8:16] : (tensor<2x2x16xf32>) -> tensor<2x2x8xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<2x2x8xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<2x2x8xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<2x2x8xf32>
    %7 = stablehlo.multiply %2, %1 : tensor<2x2x8xf32>
    %8 = stablehlo.multiply %3, %0 : tensor<2x2x8xf32>
    %9 = stablehlo.add %8, %7 : tensor<2x2x8xf32>
    %10 = stablehlo.concatenate %6, %9, dim = 2 : (tensor<2x2x8xf32>, tensor<2x2x8xf32>) -> tensor<2x2x16xf32>
    return %10 : tensor<2x2x16xf32>
  }
  func.func private @tessera.attention.0(%arg0: tensor<1x4x16xf32>, %arg1: tensor<32x2x16xf32>, %arg2: tensor<32x2x16xf32>, %arg3: tensor<i32>) -> tensor<1x4x16xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<1x4x16xf32>) -> tensor<1x2x2x16xf32>
    %1 = stablehlo.dot_general %0, %arg1, batching_dims = [1] x [1], contracting_dims = [3] x [2] : (tensor<1x2x2x16xf32>, tensor<32x2x16xf32>) -> tensor<2x1x2x32xf32>
    %2 = stablehlo.constant dense<0x3E800000> : tensor<f32>
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
    %25 = stablehlo.dot_general %24, %arg2, batching_dims = [0] x [1], contracting_dims = [3] x [0] : (tensor<2x1x2x32xf32>, tensor<32x2x16xf32>) -> tensor<2x1x2x16xf32>
    %26 = stablehlo.transpose %25, dims = [1, 0, 2, 3] : (tensor<2x1x2x16xf32>) -> tensor<1x2x2x16xf32>
    %27 = stablehlo.reshape %26 : (tensor<1x2x2x16xf32>) -> tensor<1x4x16xf32>
    return %27 : tensor<1x4x16xf32>
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
  func.func private @tessera.linear.2(%arg0: tensor<2x64xf32>, %arg1: tensor<1344x64xf32>) -> tensor<2x1344xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<2x64xf32>, tensor<1344x64xf32>) -> tensor<2x1344xf32>
    return %0 : tensor<2x1344xf32>
  }
}
