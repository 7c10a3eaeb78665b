module @prefill_embeddings_main_c32 {
  func.func public @main(%arg0: tensor<1344x64xf32> {tessera.name = "model.embed_tokens.weight", tessera.role = "weight"}, %arg1: tensor<64xf32> {tessera.name = "model.layers.0.input_layernorm.weight", tessera.role = "weight"}, %arg2: tensor<128x64xf32> {tessera.name = "model.layers.0.self_attn.q_proj.weight", tessera.role = "weight"}, %arg3: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.k_proj.weight", tessera.role = "weight"}, %arg4: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.v_proj.weight", tessera.role = "weight"}, %arg5: tensor<32xf32> {tessera.name = "model.layers.0.self_attn.q_norm.weight", tessera.role = "weight"}, %arg6: tensor<32xf32> {tessera.name = "model.layers.0.self_attn.k_norm.weight", tessera.role = "weight"}, %arg7: tensor<64x128xf32> {tessera.name = "model.layers.0.self_attn.o_proj.weight", tessera.role = "weight"}, %arg8: tensor<64xf32> {tessera.name = "model.layers.0.post_attention_layernorm.weight", tessera.role = "weight"}, %arg9: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.gate_proj.weight", tessera.role = "weight"}, %arg10: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.up_proj.weight", tessera.role = "weight"}, %arg11: tensor<64x160xf32> {tessera.name = "model.layers.0.mlp.down_proj.weight", tessera.role = "weight"}, %arg12: tensor<64xf32> {tessera.name = "model.layers.1.input_layernorm.weight", tessera.role = "weight"}, %arg13: tensor<128x64xf32> {tessera.name = "model.layers.1.self_attn.q_proj.weight", tessera.role = "weight"}, %arg14: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.k_proj.weight", tessera.role = "weight"}, %arg15: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.v_proj.weight", tessera.role = "weight"}, %arg16: tensor<32xf32> {tessera.name = "model.layers.1.self_attn.q_norm.weight", tessera.role = "weight"}, %arg17: tensor<32xf32> {tessera.name = "model.layers.1.self_attn.k_norm.weight", tessera.role = "weight"}, %arg18: tensor<64x128xf32> {tessera.name = "model.layers.1.self_attn.o_proj.weight", tessera.role = "weight"}, %arg19: tensor<64xf32> {tessera.name = "model.layers.1.post_attention_layernorm.weight", tessera.role = "weight"}, %arg20: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.gate_proj.weight", tessera.role = "weight"}, %arg21: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.up_proj.weight", tessera.role = "weight"}, %arg22: tensor<64x160xf32> {tessera.name = "model.layers.1.mlp.down_proj.weight", tessera.role = "weight"}, %arg23: tensor<64xf32> {tessera.name = "model.layers.2.input_layernorm.weight", tessera.role = "weight"}, %arg24: tensor<128x64xf32> {tessera.name = "model.layers.2.self_attn.q_proj.weight", tessera.role = "weight"}, %arg25: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.k_proj.weight", tessera.role = "weight"}, %arg26: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.v_proj.weight", tessera.role = "weight"}, %arg27: tensor<32xf32> {tessera.name = "model.layers.2.self_attn.q_norm.weight", tessera.role = "weight"}, %arg28: tensor<32xf32> {tessera.name = "model.layers.2.self_attn.k_norm.weight", tessera.role = "weight"}, %arg29: tensor<64x128xf32> {tessera.name = "model.layers.2.self_attn.o_proj.weight", tessera.role = "weight"}, %arg30: tensor<64xf32> {tessera.name = "model.layers.2.post_attention_layernorm.weight", tessera.role = "weight"}, %arg31: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.gate_proj.weight", tessera.role = "weight"}, %arg32: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.up_proj.weight", tessera.role = "weight"}, %arg33: tensor<64x160xf32> {tessera.name = "model.layers.2.mlp.down_proj.weight", tessera.role = "weight"}, %arg34: tensor<64xf32> {tessera.name = "model.norm.weight", tessera.role = "weight"}, %arg35: tensor<16x64xf32> {tessera.name = "embeddings", tessera.role = "input"}, %arg36: tensor<16xi32> {tessera.name = "positions", tessera.role = "input"}, %arg37: tensor<16x16xf32> {tessera.name = "bias", tessera.role = "input"}, %arg38: tensor<i32> {tessera.name = "length", tessera.role = "input"}) -> (tensor<1344xf32>, tensor<3x32x2x32xf32>, tensor<3x32x2x32xf32>) {
    %0 = stablehlo.constant dense<"0x0000803F9BE8D73E8718363E0D94993DE386013DF27B5A3C9C44B83B0D691B3B6F12833A2517DD3953773A39A4439D38B2A204384FBA5F37C1B0BC36E4231F36"> : tensor<16xf32> loc("rope")
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %2 = stablehlo.convert %arg36 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %4 = stablehlo.multiply %3, %1 : tensor<16x16xf32> loc("rope")
    %5 = stablehlo.cosine %4 : tensor<16x16xf32> loc("rope")
    %6 = stablehlo.sine %4 : tensor<16x16xf32> loc("rope")
    %7 = stablehlo.composite "tessera.rms_norm" %arg35, %arg1 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %8 = stablehlo.composite "tessera.linear" %7, %arg2 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.0.attn")
    %9 = stablehlo.reshape %8 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %10 = stablehlo.composite "tessera.linear" %7, %arg3 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %11 = stablehlo.reshape %10 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %12 = stablehlo.composite "tessera.linear" %7, %arg4 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %13 = stablehlo.reshape %12 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %14 = stablehlo.composite "tessera.rms_norm" %9, %arg5 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %15 = stablehlo.composite "tessera.rms_norm" %11, %arg6 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %16 = stablehlo.composite "tessera.rope" %14, %5, %6 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %17 = stablehlo.composite "tessera.rope" %15, %5, %6 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %18 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.0.attn")
    %19 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.0.attn")
    %20 = stablehlo.compare  LT, %18, %19,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.0.attn")
    %21 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %23 = stablehlo.select %20, %17, %22 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.0.attn")
    %24 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %25 = stablehlo.pad %23, %24, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %26 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.0.attn")
    %27 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.0.attn")
    %28 = stablehlo.compare  LT, %26, %27,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.0.attn")
    %29 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %30 = stablehlo.broadcast_in_dim %29, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %31 = stablehlo.select %28, %13, %30 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.0.attn")
    %32 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %33 = stablehlo.pad %31, %32, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %34 = stablehlo.composite "tessera.attention" %16, %17, %13, %arg37 {composite_attributes = {causal = false, has_bias = true, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %35 = stablehlo.reshape %34 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.0.attn")
    %36 = stablehlo.composite "tessera.linear" %35, %arg7 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %37 = stablehlo.add %arg35, %36 : tensor<16x64xf32> loc("layer.0.attn")
    %38 = stablehlo.composite "tessera.rms_norm" %37, %arg8 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %39 = stablehlo.composite "tessera.gated_mlp" %38, %arg9, %arg10, %arg11 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %40 = stablehlo.add %37, %39 : tensor<16x64xf32> loc("layer.0.mlp")
    %41 = stablehlo.composite "tessera.rms_norm" %40, %arg12 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %42 = stablehlo.composite "tessera.linear" %41, %arg13 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.1.attn")
    %43 = stablehlo.reshape %42 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %44 = stablehlo.composite "tessera.linear" %41, %arg14 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %45 = stablehlo.reshape %44 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %46 = stablehlo.composite "tessera.linear" %41, %arg15 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %47 = stablehlo.reshape %46 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %48 = stablehlo.composite "tessera.rms_norm" %43, %arg16 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %49 = stablehlo.composite "tessera.rms_norm" %45, %arg17 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %50 = stablehlo.composite "tessera.rope" %48, %5, %6 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %51 = stablehlo.composite "tessera.rope" %49, %5, %6 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %52 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.1.attn")
    %53 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.1.attn")
    %54 = stablehlo.compare  LT, %52, %53,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.1.attn")
    %55 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %56 = stablehlo.broadcast_in_dim %55, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %57 = stablehlo.select %54, %51, %56 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.1.attn")
    %58 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %59 = stablehlo.pad %57, %58, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %60 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.1.attn")
    %61 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.1.attn")
    %62 = stablehlo.compare  LT, %60, %61,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.1.attn")
    %63 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %64 = stablehlo.broadcast_in_dim %63, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %65 = stablehlo.select %62, %47, %64 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.1.attn")
    %66 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %67 = stablehlo.pad %65, %66, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %68 = stablehlo.composite "tessera.attention" %50, %51, %47, %arg37 {composite_attributes = {causal = false, has_bias = true, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %69 = stablehlo.reshape %68 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.1.attn")
    %70 = stablehlo.composite "tessera.linear" %69, %arg18 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %71 = stablehlo.add %40, %70 : tensor<16x64xf32> loc("layer.1.attn")
    %72 = stablehlo.composite "tessera.rms_norm" %71, %arg19 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %73 = stablehlo.composite "tessera.gated_mlp" %72, %arg20, %arg21, %arg22 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %74 = stablehlo.add %71, %73 : tensor<16x64xf32> loc("layer.1.mlp")
    %75 = stablehlo.composite "tessera.rms_norm" %74, %arg23 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %76 = stablehlo.composite "tessera.linear" %75, %arg24 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.2.attn")
    %77 = stablehlo.reshape %76 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %78 = stablehlo.composite "tessera.linear" %75, %arg25 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %79 = stablehlo.reshape %78 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %80 = stablehlo.composite "tessera.linear" %75, %arg26 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %81 = stablehlo.reshape %80 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %82 = stablehlo.composite "tessera.rms_norm" %77, %arg27 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %83 = stablehlo.composite "tessera.rms_norm" %79, %arg28 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %84 = stablehlo.composite "tessera.rope" %82, %5, %6 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %85 = stablehlo.composite "tessera.rope" %83, %5, %6 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %86 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.2.attn")
    %87 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.2.attn")
    %88 = stablehlo.compare  LT, %86, %87,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.2.attn")
    %89 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %90 = stablehlo.broadcast_in_dim %89, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %91 = stablehlo.select %88, %85, %90 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.2.attn")
    %92 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %93 = stablehlo.pad %91, %92, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %94 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.2.attn")
    %95 = stablehlo.broadcast_in_dim %arg38, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.2.attn")
    %96 = stablehlo.compare  LT, %94, %95,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.2.attn")
    %97 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %98 = stablehlo.broadcast_in_dim %97, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %99 = stablehlo.select %96, %81, %98 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.2.attn")
    %100 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %101 = stablehlo.pad %99, %100, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %102 = stablehlo.composite "tessera.attention" %84, %85, %81, %arg37 {composite_attributes = {causal = false, has_bias = true, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %103 = stablehlo.reshape %102 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.2.attn")
    %104 = stablehlo.composite "tessera.linear" %103, %arg29 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %105 = stablehlo.add %74, %104 : tensor<16x64xf32> loc("layer.2.attn")
    %106 = stablehlo.composite "tessera.rms_norm" %105, %arg30 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %107 = stablehlo.composite "tessera.gated_mlp" %106, %arg31, %arg32, %arg33 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %108 = stablehlo.add %105, %107 : tensor<16x64xf32> loc("layer.2.mlp")
    %109 = stablehlo.constant dense<1> : tensor<i32> loc("last_token")
    %110 = stablehlo.subtract %arg38, %109 : tensor<i32> loc("last_token")
    %111 = stablehlo.constant dense<0> : tensor<i32> loc("last_token")
    %112 = stablehlo.dynamic_slice %108, %110, %111, sizes = [1, 64] : (tensor<16x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32> loc("last_token")
    %113 = stablehlo.composite "tessera.rms_norm" %112, %arg34 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.3} : (tensor<1x64xf32>, tensor<64xf32>) -> tensor<1x64xf32> loc("lm_head")
    %114 = stablehlo.composite "tessera.linear" %113, %arg0 {decomposition = @tessera.linear.3} : (tensor<1x64xf32>, tensor<1344x64xf32>) -> tensor<1x1344xf32> loc("lm_head")
    %115 = stablehlo.reshape %114 : (tensor<1x1344xf32>) -> tensor<1344xf32> loc("lm_head")
    %116 = stablehlo.reshape %25 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %117 = stablehlo.reshape %59 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %118 = stablehlo.reshape %93 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %119 = stablehlo.concatenate %116, %117, %118, dim = 0 : (tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>) -> tensor<3x32x2x32xf32> loc("kv")
    %120 = stablehlo.reshape %33 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %121 = stablehlo.reshape %67 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %122 = stablehlo.reshape %101 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %123 = stablehlo.concatenate %120, %121, %122, dim = 0 : (tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>) -> tensor<3x32x2x32xf32> loc("kv")
    return %115, %119, %123 : tensor<1344xf32>, tensor<3x32x2x32xf32>, tensor<3x32x2x32xf32>
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
