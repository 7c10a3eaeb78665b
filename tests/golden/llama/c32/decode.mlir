module @decode_main_c32 {
  func.func public @main(%arg0: tensor<1344x64xf32> {tessera.name = "model.embed_tokens.weight", tessera.role = "weight"}, %arg1: tensor<64xf32> {tessera.name = "model.layers.0.input_layernorm.weight", tessera.role = "weight"}, %arg2: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.q_proj.weight", tessera.role = "weight"}, %arg3: tensor<32x64xf32> {tessera.name = "model.layers.0.self_attn.k_proj.weight", tessera.role = "weight"}, %arg4: tensor<32x64xf32> {tessera.name = "model.layers.0.self_attn.v_proj.weight", tessera.role = "weight"}, %arg5: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.o_proj.weight", tessera.role = "weight"}, %arg6: tensor<64xf32> {tessera.name = "model.layers.0.post_attention_layernorm.weight", tessera.role = "weight"}, %arg7: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.gate_proj.weight", tessera.role = "weight"}, %arg8: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.up_proj.weight", tessera.role = "weight"}, %arg9: tensor<64x160xf32> {tessera.name = "model.layers.0.mlp.down_proj.weight", tessera.role = "weight"}, %arg10: tensor<64xf32> {tessera.name = "model.layers.1.input_layernorm.weight", tessera.role = "weight"}, %arg11: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.q_proj.weight", tessera.role = "weight"}, %arg12: tensor<32x64xf32> {tessera.name = "model.layers.1.self_attn.k_proj.weight", tessera.role = "weight"}, %arg13: tensor<32x64xf32> {tessera.name = "model.layers.1.self_attn.v_proj.weight", tessera.role = "weight"}, %arg14: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.o_proj.weight", tessera.role = "weight"}, %arg15: tensor<64xf32> {tessera.name = "model.layers.1.post_attention_layernorm.weight", tessera.role = "weight"}, %arg16: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.gate_proj.weight", tessera.role = "weight"}, %arg17: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.up_proj.weight", tessera.role = "weight"}, %arg18: tensor<64x160xf32> {tessera.name = "model.layers.1.mlp.down_proj.weight", tessera.role = "weight"}, %arg19: tensor<64xf32> {tessera.name = "model.layers.2.input_layernorm.weight", tessera.role = "weight"}, %arg20: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.q_proj.weight", tessera.role = "weight"}, %arg21: tensor<32x64xf32> {tessera.name = "model.layers.2.self_attn.k_proj.weight", tessera.role = "weight"}, %arg22: tensor<32x64xf32> {tessera.name = "model.layers.2.self_attn.v_proj.weight", tessera.role = "weight"}, %arg23: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.o_proj.weight", tessera.role = "weight"}, %arg24: tensor<64xf32> {tessera.name = "model.layers.2.post_attention_layernorm.weight", tessera.role = "weight"}, %arg25: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.gate_proj.weight", tessera.role = "weight"}, %arg26: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.up_proj.weight", tessera.role = "weight"}, %arg27: tensor<64x160xf32> {tessera.name = "model.layers.2.mlp.down_proj.weight", tessera.role = "weight"}, %arg28: tensor<64xf32> {tessera.name = "model.norm.weight", tessera.role = "weight"}, %arg29: tensor<2xi32> {tessera.name = "tokens", tessera.role = "input"}, %arg30: tensor<2xi32> {tessera.name = "positions", tessera.role = "input"}, %arg31: tensor<2xi32> {tessera.name = "rope_delta", tessera.role = "input"}, %arg32: tensor<2xi32> {tessera.name = "cache_len", tessera.role = "input"}, %arg33: tensor<2x3x32x2x16xf32> {tessera.name = "k", tessera.role = "state"}, %arg34: tensor<2x3x32x2x16xf32> {tessera.name = "v", tessera.role = "state"}) -> (tensor<2x1344xf32>, tensor<2x3x32x2x16xf32>, tensor<2x3x32x2x16xf32>) {
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
    %21 = stablehlo.slice %17 [0:1, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.0.attn")
    %22 = stablehlo.slice %arg33 [0:1, 0:1, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.0.attn")
    %23 = stablehlo.reshape %22 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %24 = stablehlo.dynamic_update_slice %23, %21, %20, %18, %18 : (tensor<32x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %25 = stablehlo.slice %15 [0:1, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.0.attn")
    %26 = stablehlo.slice %arg34 [0:1, 0:1, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.0.attn")
    %27 = stablehlo.reshape %26 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %28 = stablehlo.dynamic_update_slice %27, %25, %20, %18, %18 : (tensor<32x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %29 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %30 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %31 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %32 = stablehlo.reshape %24 : (tensor<32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.0.attn")
    %33 = stablehlo.dynamic_update_slice %arg33, %32, %30, %31, %29, %29, %29 : (tensor<2x3x32x2x16xf32>, tensor<1x1x32x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.0.attn")
    %34 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %35 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %36 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %37 = stablehlo.reshape %28 : (tensor<32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.0.attn")
    %38 = stablehlo.dynamic_update_slice %arg34, %37, %35, %36, %34, %34, %34 : (tensor<2x3x32x2x16xf32>, tensor<1x1x32x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.0.attn")
    %39 = stablehlo.slice %16 [0:1, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32> loc("layer.0.attn")
    %40 = stablehlo.composite "tessera.attention" %39, %24, %28, %20 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x16xf32>, tensor<32x2x16xf32>, tensor<32x2x16xf32>, tensor<i32>) -> tensor<1x4x16xf32> loc("layer.0.attn")
    %41 = stablehlo.slice %arg32 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.0.attn")
    %42 = stablehlo.reshape %41 : (tensor<1xi32>) -> tensor<i32> loc("layer.0.attn")
    %43 = stablehlo.slice %17 [1:2, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.0.attn")
    %44 = stablehlo.slice %33 [1:2, 0:1, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.0.attn")
    %45 = stablehlo.reshape %44 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %46 = stablehlo.dynamic_update_slice %45, %43, %42, %18, %18 : (tensor<32x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %47 = stablehlo.slice %15 [1:2, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.0.attn")
    %48 = stablehlo.slice %38 [1:2, 0:1, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.0.attn")
    %49 = stablehlo.reshape %48 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %50 = stablehlo.dynamic_update_slice %49, %47, %42, %18, %18 : (tensor<32x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x16xf32> loc("layer.0.attn")
    %51 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %52 = stablehlo.constant dense<1> : tensor<i32> loc("layer.0.attn")
    %53 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %54 = stablehlo.reshape %46 : (tensor<32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.0.attn")
    %55 = stablehlo.dynamic_update_slice %33, %54, %52, %53, %51, %51, %51 : (tensor<2x3x32x2x16xf32>, tensor<1x1x32x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.0.attn")
    %56 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %57 = stablehlo.constant dense<1> : tensor<i32> loc("layer.0.attn")
    %58 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %59 = stablehlo.reshape %50 : (tensor<32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.0.attn")
    %60 = stablehlo.dynamic_update_slice %38, %59, %57, %58, %56, %56, %56 : (tensor<2x3x32x2x16xf32>, tensor<1x1x32x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.0.attn")
    %61 = stablehlo.slice %16 [1:2, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32> loc("layer.0.attn")
    %62 = stablehlo.composite "tessera.attention" %61, %46, %50, %42 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x16xf32>, tensor<32x2x16xf32>, tensor<32x2x16xf32>, tensor<i32>) -> tensor<1x4x16xf32> loc("layer.0.attn")
    %63 = stablehlo.concatenate %40, %62, dim = 0 : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<2x4x16xf32> loc("layer.0.attn")
    %64 = stablehlo.reshape %63 : (tensor<2x4x16xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %65 = stablehlo.composite "tessera.linear" %64, %arg5 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.0.attn")
    %66 = stablehlo.add %8, %65 : tensor<2x64xf32> loc("layer.0.attn")
    %67 = stablehlo.composite "tessera.rms_norm" %66, %arg6 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.0.mlp")
    %68 = stablehlo.composite "tessera.gated_mlp" %67, %arg7, %arg8, %arg9 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.0.mlp")
    %69 = stablehlo.add %66, %68 : tensor<2x64xf32> loc("layer.0.mlp")
    %70 = stablehlo.composite "tessera.rms_norm" %69, %arg10 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %71 = stablehlo.composite "tessera.linear" %70, %arg11 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %72 = stablehlo.reshape %71 : (tensor<2x64xf32>) -> tensor<2x4x16xf32> loc("layer.1.attn")
    %73 = stablehlo.composite "tessera.linear" %70, %arg12 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<32x64xf32>) -> tensor<2x32xf32> loc("layer.1.attn")
    %74 = stablehlo.reshape %73 : (tensor<2x32xf32>) -> tensor<2x2x16xf32> loc("layer.1.attn")
    %75 = stablehlo.composite "tessera.linear" %70, %arg13 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<32x64xf32>) -> tensor<2x32xf32> loc("layer.1.attn")
    %76 = stablehlo.reshape %75 : (tensor<2x32xf32>) -> tensor<2x2x16xf32> loc("layer.1.attn")
    %77 = stablehlo.composite "tessera.rope" %72, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x4x16xf32> loc("layer.1.attn")
    %78 = stablehlo.composite "tessera.rope" %74, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x2x16xf32> loc("layer.1.attn")
    %79 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %80 = stablehlo.slice %arg32 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.1.attn")
    %81 = stablehlo.reshape %80 : (tensor<1xi32>) -> tensor<i32> loc("layer.1.attn")
    %82 = stablehlo.slice %78 [0:1, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.1.attn")
    %83 = stablehlo.slice %55 [0:1, 1:2, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.1.attn")
    %84 = stablehlo.reshape %83 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %85 = stablehlo.dynamic_update_slice %84, %82, %81, %79, %79 : (tensor<32x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %86 = stablehlo.slice %76 [0:1, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.1.attn")
    %87 = stablehlo.slice %60 [0:1, 1:2, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.1.attn")
    %88 = stablehlo.reshape %87 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %89 = stablehlo.dynamic_update_slice %88, %86, %81, %79, %79 : (tensor<32x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %90 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %91 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %92 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %93 = stablehlo.reshape %85 : (tensor<32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.1.attn")
    %94 = stablehlo.dynamic_update_slice %55, %93, %91, %92, %90, %90, %90 : (tensor<2x3x32x2x16xf32>, tensor<1x1x32x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.1.attn")
    %95 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %96 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %97 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %98 = stablehlo.reshape %89 : (tensor<32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.1.attn")
    %99 = stablehlo.dynamic_update_slice %60, %98, %96, %97, %95, %95, %95 : (tensor<2x3x32x2x16xf32>, tensor<1x1x32x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.1.attn")
    %100 = stablehlo.slice %77 [0:1, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32> loc("layer.1.attn")
    %101 = stablehlo.composite "tessera.attention" %100, %85, %89, %81 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x16xf32>, tensor<32x2x16xf32>, tensor<32x2x16xf32>, tensor<i32>) -> tensor<1x4x16xf32> loc("layer.1.attn")
    %102 = stablehlo.slice %arg32 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.1.attn")
    %103 = stablehlo.reshape %102 : (tensor<1xi32>) -> tensor<i32> loc("layer.1.attn")
    %104 = stablehlo.slice %78 [1:2, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.1.attn")
    %105 = stablehlo.slice %94 [1:2, 1:2, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.1.attn")
    %106 = stablehlo.reshape %105 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %107 = stablehlo.dynamic_update_slice %106, %104, %103, %79, %79 : (tensor<32x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %108 = stablehlo.slice %76 [1:2, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.1.attn")
    %109 = stablehlo.slice %99 [1:2, 1:2, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.1.attn")
    %110 = stablehlo.reshape %109 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %111 = stablehlo.dynamic_update_slice %110, %108, %103, %79, %79 : (tensor<32x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x16xf32> loc("layer.1.attn")
    %112 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %113 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %114 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %115 = stablehlo.reshape %107 : (tensor<32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.1.attn")
    %116 = stablehlo.dynamic_update_slice %94, %115, %113, %114, %112, %112, %112 : (tensor<2x3x32x2x16xf32>, tensor<1x1x32x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.1.attn")
    %117 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %118 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %119 = stablehlo.constant dense<1> : tensor<i32> loc("layer.1.attn")
    %120 = stablehlo.reshape %111 : (tensor<32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.1.attn")
    %121 = stablehlo.dynamic_update_slice %99, %120, %118, %119, %117, %117, %117 : (tensor<2x3x32x2x16xf32>, tensor<1x1x32x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.1.attn")
    %122 = stablehlo.slice %77 [1:2, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32> loc("layer.1.attn")
    %123 = stablehlo.composite "tessera.attention" %122, %107, %111, %103 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x16xf32>, tensor<32x2x16xf32>, tensor<32x2x16xf32>, tensor<i32>) -> tensor<1x4x16xf32> loc("layer.1.attn")
    %124 = stablehlo.concatenate %101, %123, dim = 0 : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<2x4x16xf32> loc("layer.1.attn")
    %125 = stablehlo.reshape %124 : (tensor<2x4x16xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %126 = stablehlo.composite "tessera.linear" %125, %arg14 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.1.attn")
    %127 = stablehlo.add %69, %126 : tensor<2x64xf32> loc("layer.1.attn")
    %128 = stablehlo.composite "tessera.rms_norm" %127, %arg15 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.1.mlp")
    %129 = stablehlo.composite "tessera.gated_mlp" %128, %arg16, %arg17, %arg18 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.1.mlp")
    %130 = stablehlo.add %127, %129 : tensor<2x64xf32> loc("layer.1.mlp")
    %131 = stablehlo.composite "tessera.rms_norm" %130, %arg19 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %132 = stablehlo.composite "tessera.linear" %131, %arg20 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %133 = stablehlo.reshape %132 : (tensor<2x64xf32>) -> tensor<2x4x16xf32> loc("layer.2.attn")
    %134 = stablehlo.composite "tessera.linear" %131, %arg21 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<32x64xf32>) -> tensor<2x32xf32> loc("layer.2.attn")
    %135 = stablehlo.reshape %134 : (tensor<2x32xf32>) -> tensor<2x2x16xf32> loc("layer.2.attn")
    %136 = stablehlo.composite "tessera.linear" %131, %arg22 {decomposition = @tessera.linear.1} : (tensor<2x64xf32>, tensor<32x64xf32>) -> tensor<2x32xf32> loc("layer.2.attn")
    %137 = stablehlo.reshape %136 : (tensor<2x32xf32>) -> tensor<2x2x16xf32> loc("layer.2.attn")
    %138 = stablehlo.composite "tessera.rope" %133, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<2x4x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x4x16xf32> loc("layer.2.attn")
    %139 = stablehlo.composite "tessera.rope" %135, %6, %7 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.1} : (tensor<2x2x16xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x2x16xf32> loc("layer.2.attn")
    %140 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %141 = stablehlo.slice %arg32 [0:1] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.2.attn")
    %142 = stablehlo.reshape %141 : (tensor<1xi32>) -> tensor<i32> loc("layer.2.attn")
    %143 = stablehlo.slice %139 [0:1, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.2.attn")
    %144 = stablehlo.slice %116 [0:1, 2:3, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.2.attn")
    %145 = stablehlo.reshape %144 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %146 = stablehlo.dynamic_update_slice %145, %143, %142, %140, %140 : (tensor<32x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %147 = stablehlo.slice %137 [0:1, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.2.attn")
    %148 = stablehlo.slice %121 [0:1, 2:3, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.2.attn")
    %149 = stablehlo.reshape %148 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %150 = stablehlo.dynamic_update_slice %149, %147, %142, %140, %140 : (tensor<32x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %151 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %152 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %153 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %154 = stablehlo.reshape %146 : (tensor<32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.2.attn")
    %155 = stablehlo.dynamic_update_slice %116, %154, %152, %153, %151, %151, %151 : (tensor<2x3x32x2x16xf32>, tensor<1x1x32x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.2.attn")
    %156 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %157 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %158 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %159 = stablehlo.reshape %150 : (tensor<32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.2.attn")
    %160 = stablehlo.dynamic_update_slice %121, %159, %157, %158, %156, %156, %156 : (tensor<2x3x32x2x16xf32>, tensor<1x1x32x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.2.attn")
    %161 = stablehlo.slice %138 [0:1, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32> loc("layer.2.attn")
    %162 = stablehlo.composite "tessera.attention" %161, %146, %150, %142 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x16xf32>, tensor<32x2x16xf32>, tensor<32x2x16xf32>, tensor<i32>) -> tensor<1x4x16xf32> loc("layer.2.attn")
    %163 = stablehlo.slice %arg32 [1:2] : (tensor<2xi32>) -> tensor<1xi32> loc("layer.2.attn")
    %164 = stablehlo.reshape %163 : (tensor<1xi32>) -> tensor<i32> loc("layer.2.attn")
    %165 = stablehlo.slice %139 [1:2, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.2.attn")
    %166 = stablehlo.slice %155 [1:2, 2:3, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.2.attn")
    %167 = stablehlo.reshape %166 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %168 = stablehlo.dynamic_update_slice %167, %165, %164, %140, %140 : (tensor<32x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %169 = stablehlo.slice %137 [1:2, 0:2, 0:16] : (tensor<2x2x16xf32>) -> tensor<1x2x16xf32> loc("layer.2.attn")
    %170 = stablehlo.slice %160 [1:2, 2:3, 0:32, 0:2, 0:16] : (tensor<2x3x32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.2.attn")
    %171 = stablehlo.reshape %170 : (tensor<1x1x32x2x16xf32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %172 = stablehlo.dynamic_update_slice %171, %169, %164, %140, %140 : (tensor<32x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<32x2x16xf32> loc("layer.2.attn")
    %173 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %174 = stablehlo.constant dense<1> : tensor<i32> loc("layer.2.attn")
    %175 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %176 = stablehlo.reshape %168 : (tensor<32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.2.attn")
    %177 = stablehlo.dynamic_update_slice %155, %176, %174, %175, %173, %173, %173 : (tensor<2x3x32x2x16xf32>, tensor<1x1x32x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.2.attn")
    %178 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %179 = stablehlo.constant dense<1> : tensor<i32> loc("layer.2.attn")
    %180 = stablehlo.constant dense<2> : tensor<i32> loc("layer.2.attn")
    %181 = stablehlo.reshape %172 : (tensor<32x2x16xf32>) -> tensor<1x1x32x2x16xf32> loc("layer.2.attn")
    %182 = stablehlo.dynamic_update_slice %160, %181, %179, %180, %178, %178, %178 : (tensor<2x3x32x2x16xf32>, tensor<1x1x32x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x32x2x16xf32> loc("layer.2.attn")
    %183 = stablehlo.slice %138 [1:2, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32> loc("layer.2.attn")
    %184 = stablehlo.composite "tessera.attention" %183, %168, %172, %164 {composite_attributes = {causal = true, has_bias = false, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<1x4x16xf32>, tensor<32x2x16xf32>, tensor<32x2x16xf32>, tensor<i32>) -> tensor<1x4x16xf32> loc("layer.2.attn")
    %185 = stablehlo.concatenate %162, %184, dim = 0 : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<2x4x16xf32> loc("layer.2.attn")
    %186 = stablehlo.reshape %185 : (tensor<2x4x16xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %187 = stablehlo.composite "tessera.linear" %186, %arg23 {decomposition = @tessera.linear.0} : (tensor<2x64xf32>, tensor<64x64xf32>) -> tensor<2x64xf32> loc("layer.2.attn")
    %188 = stablehlo.add %130, %187 : tensor<2x64xf32> loc("layer.2.attn")
    %189 = stablehlo.composite "tessera.rms_norm" %188, %arg24 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("layer.2.mlp")
    %190 = stablehlo.composite "tessera.gated_mlp" %189, %arg25, %arg26, %arg27 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<2x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x64xf32> loc("layer.2.mlp")
    %191 = stablehlo.add %188, %190 : tensor<2x64xf32> loc("layer.2.mlp")
    %192 = stablehlo.composite "tessera.rms_norm" %191, %arg28 {composite_attributes = {eps = 1.0e-05 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32> loc("lm_head")
    %193 = stablehlo.composite "tessera.linear" %192, %arg0 {decomposition = @tessera.linear.2} : (tensor<2x64xf32>, tensor<1344x64xf32>) -> tensor<2x1344xf32> loc("lm_head")
    return %193, %177, %182 : tensor<2x1344xf32>, tensor<2x3x32x2x16xf32>, tensor<2x3x32x2x16xf32>
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
