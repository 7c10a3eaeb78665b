module @prefill_main_c32 {
  func.func public @main(%arg0: tensor<1344x64xf32> {tessera.name = "model.embed_tokens.weight", tessera.role = "weight"}, %arg1: tensor<64xf32> {tessera.name = "model.layers.0.input_layernorm.weight", tessera.role = "weight"}, %arg2: tensor<128x64xf32> {tessera.name = "model.layers.0.self_attn.q_proj.weight", tessera.role = "weight"}, %arg3: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.k_proj.weight", tessera.role = "weight"}, %arg4: tensor<64x64xf32> {tessera.name = "model.layers.0.self_attn.v_proj.weight", tessera.role = "weight"}, %arg5: tensor<32xf32> {tessera.name = "model.layers.0.self_attn.q_norm.weight", tessera.role = "weight"}, %arg6: tensor<32xf32> {tessera.name = "model.layers.0.self_attn.k_norm.weight", tessera.role = "weight"}, %arg7: tensor<64x128xf32> {tessera.name = "model.layers.0.self_attn.o_proj.weight", tessera.role = "weight"}, %arg8: tensor<64xf32> {tessera.name = "model.layers.0.post_attention_layernorm.weight", tessera.role = "weight"}, %arg9: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.gate_proj.weight", tessera.role = "weight"}, %arg10: tensor<160x64xf32> {tessera.name = "model.layers.0.mlp.up_proj.weight", tessera.role = "weight"}, %arg11: tensor<64x160xf32> {tessera.name = "model.layers.0.mlp.down_proj.weight", tessera.role = "weight"}, %arg12: tensor<64xf32> {tessera.name = "model.layers.1.input_layernorm.weight", tessera.role = "weight"}, %arg13: tensor<128x64xf32> {tessera.name = "model.layers.1.self_attn.q_proj.weight", tessera.role = "weight"}, %arg14: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.k_proj.weight", tessera.role = "weight"}, %arg15: tensor<64x64xf32> {tessera.name = "model.layers.1.self_attn.v_proj.weight", tessera.role = "weight"}, %arg16: tensor<32xf32> {tessera.name = "model.layers.1.self_attn.q_norm.weight", tessera.role = "weight"}, %arg17: tensor<32xf32> {tessera.name = "model.layers.1.self_attn.k_norm.weight", tessera.role = "weight"}, %arg18: tensor<64x128xf32> {tessera.name = "model.layers.1.self_attn.o_proj.weight", tessera.role = "weight"}, %arg19: tensor<64xf32> {tessera.name = "model.layers.1.post_attention_layernorm.weight", tessera.role = "weight"}, %arg20: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.gate_proj.weight", tessera.role = "weight"}, %arg21: tensor<160x64xf32> {tessera.name = "model.layers.1.mlp.up_proj.weight", tessera.role = "weight"}, %arg22: tensor<64x160xf32> {tessera.name = "model.layers.1.mlp.down_proj.weight", tessera.role = "weight"}, %arg23: tensor<64xf32> {tessera.name = "model.layers.2.input_layernorm.weight", tessera.role = "weight"}, %arg24: tensor<128x64xf32> {tessera.name = "model.layers.2.self_attn.q_proj.weight", tessera.role = "weight"}, %arg25: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.k_proj.weight", tessera.role = "weight"}, %arg26: tensor<64x64xf32> {tessera.name = "model.layers.2.self_attn.v_proj.weight", tessera.role = "weight"}, %arg27: tensor<32xf32> {tessera.name = "model.layers.2.self_attn.q_norm.weight", tessera.role = "weight"}, %arg28: tensor<32xf32> {tessera.name = "model.layers.2.self_attn.k_norm.weight", tessera.role = "weight"}, %arg29: tensor<64x128xf32> {tessera.name = "model.layers.2.self_attn.o_proj.weight", tessera.role = "weight"}, %arg30: tensor<64xf32> {tessera.name = "model.layers.2.post_attention_layernorm.weight", tessera.role = "weight"}, %arg31: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.gate_proj.weight", tessera.role = "weight"}, %arg32: tensor<160x64xf32> {tessera.name = "model.layers.2.mlp.up_proj.weight", tessera.role = "weight"}, %arg33: tensor<64x160xf32> {tessera.name = "model.layers.2.mlp.down_proj.weight", tessera.role = "weight"}, %arg34: tensor<64xf32> {tessera.name = "model.norm.weight", tessera.role = "weight"}, %arg35: tensor<16xi32> {tessera.name = "tokens", tessera.role = "input"}, %arg36: tensor<i32> {tessera.name = "length", tessera.role = "input"}) -> (tensor<1344xf32>, tensor<3x32x2x32xf32>, tensor<3x32x2x32xf32>) {
    %0 = stablehlo.iota dim = 0 : tensor<16xi32> loc("inputs")
    %1 = stablehlo.composite "tessera.embedding" %arg0, %arg35 {decomposition = @tessera.embedding.0} : (tensor<1344x64xf32>, tensor<16xi32>) -> tensor<16x64xf32> loc("embed_tokens")
    %2 = stablehlo.constant dense<"0x0000803F9BE8D73E8718363E0D94993DE386013DF27B5A3C9C44B83B0D691B3B6F12833A2517DD3953773A39A4439D38B2A204384FBA5F37C1B0BC36E4231F36"> : tensor<16xf32> loc("rope")
    %3 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %4 = stablehlo.convert %0 : (tensor<16xi32>) -> tensor<16xf32> loc("rope")
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32> loc("rope")
    %6 = stablehlo.multiply %5, %3 : tensor<16x16xf32> loc("rope")
    %7 = stablehlo.cosine %6 : tensor<16x16xf32> loc("rope")
    %8 = stablehlo.sine %6 : tensor<16x16xf32> loc("rope")
    %9 = stablehlo.composite "tessera.rms_norm" %1, %arg1 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %10 = stablehlo.composite "tessera.linear" %9, %arg2 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.0.attn")
    %11 = stablehlo.reshape %10 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %12 = stablehlo.composite "tessera.linear" %9, %arg3 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %13 = stablehlo.reshape %12 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %14 = stablehlo.composite "tessera.linear" %9, %arg4 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %15 = stablehlo.reshape %14 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %16 = stablehlo.composite "tessera.rms_norm" %11, %arg5 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %17 = stablehlo.composite "tessera.rms_norm" %13, %arg6 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %18 = stablehlo.composite "tessera.rope" %16, %7, %8 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %19 = stablehlo.composite "tessera.rope" %17, %7, %8 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %20 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.0.attn")
    %21 = stablehlo.broadcast_in_dim %arg36, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.0.attn")
    %22 = stablehlo.compare  LT, %20, %21,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.0.attn")
    %23 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %24 = stablehlo.broadcast_in_dim %23, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %25 = stablehlo.select %22, %19, %24 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.0.attn")
    %26 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %27 = stablehlo.pad %25, %26, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %28 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.0.attn")
    %29 = stablehlo.broadcast_in_dim %arg36, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.0.attn")
    %30 = stablehlo.compare  LT, %28, %29,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.0.attn")
    %31 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %32 = stablehlo.broadcast_in_dim %31, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.0.attn")
    %33 = stablehlo.select %30, %15, %32 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.0.attn")
    %34 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.0.attn")
    %35 = stablehlo.pad %33, %34, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.0.attn")
    %36 = stablehlo.constant dense<0> : tensor<i32> loc("layer.0.attn")
    %37 = stablehlo.composite "tessera.attention" %18, %19, %15, %36 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<i32>) -> tensor<16x4x32xf32> loc("layer.0.attn")
    %38 = stablehlo.reshape %37 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.0.attn")
    %39 = stablehlo.composite "tessera.linear" %38, %arg7 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.0.attn")
    %40 = stablehlo.add %1, %39 : tensor<16x64xf32> loc("layer.0.attn")
    %41 = stablehlo.composite "tessera.rms_norm" %40, %arg8 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %42 = stablehlo.composite "tessera.gated_mlp" %41, %arg9, %arg10, %arg11 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.0.mlp")
    %43 = stablehlo.add %40, %42 : tensor<16x64xf32> loc("layer.0.mlp")
    %44 = stablehlo.composite "tessera.rms_norm" %43, %arg12 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %45 = stablehlo.composite "tessera.linear" %44, %arg13 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.1.attn")
    %46 = stablehlo.reshape %45 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %47 = stablehlo.composite "tessera.linear" %44, %arg14 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %48 = stablehlo.reshape %47 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %49 = stablehlo.composite "tessera.linear" %44, %arg15 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %50 = stablehlo.reshape %49 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %51 = stablehlo.composite "tessera.rms_norm" %46, %arg16 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %52 = stablehlo.composite "tessera.rms_norm" %48, %arg17 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %53 = stablehlo.composite "tessera.rope" %51, %7, %8 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %54 = stablehlo.composite "tessera.rope" %52, %7, %8 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %55 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.1.attn")
    %56 = stablehlo.broadcast_in_dim %arg36, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.1.attn")
    %57 = stablehlo.compare  LT, %55, %56,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.1.attn")
    %58 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %59 = stablehlo.broadcast_in_dim %58, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %60 = stablehlo.select %57, %54, %59 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.1.attn")
    %61 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %62 = stablehlo.pad %60, %61, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %63 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.1.attn")
    %64 = stablehlo.broadcast_in_dim %arg36, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.1.attn")
    %65 = stablehlo.compare  LT, %63, %64,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.1.attn")
    %66 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %67 = stablehlo.broadcast_in_dim %66, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.1.attn")
    %68 = stablehlo.select %65, %50, %67 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.1.attn")
    %69 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.1.attn")
    %70 = stablehlo.pad %68, %69, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.1.attn")
    %71 = stablehlo.constant dense<0> : tensor<i32> loc("layer.1.attn")
    %72 = stablehlo.composite "tessera.attention" %53, %54, %50, %71 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<i32>) -> tensor<16x4x32xf32> loc("layer.1.attn")
    %73 = stablehlo.reshape %72 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.1.attn")
    %74 = stablehlo.composite "tessera.linear" %73, %arg18 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.1.attn")
    %75 = stablehlo.add %43, %74 : tensor<16x64xf32> loc("layer.1.attn")
    %76 = stablehlo.composite "tessera.rms_norm" %75, %arg19 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %77 = stablehlo.composite "tessera.gated_mlp" %76, %arg20, %arg21, %arg22 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.1.mlp")
    %78 = stablehlo.add %75, %77 : tensor<16x64xf32> loc("layer.1.mlp")
    %79 = stablehlo.composite "tessera.rms_norm" %78, %arg23 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %80 = stablehlo.composite "tessera.linear" %79, %arg24 {decomposition = @tessera.linear.0} : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32> loc("layer.2.attn")
    %81 = stablehlo.reshape %80 : (tensor<16x128xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %82 = stablehlo.composite "tessera.linear" %79, %arg25 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %83 = stablehlo.reshape %82 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %84 = stablehlo.composite "tessera.linear" %79, %arg26 {decomposition = @tessera.linear.1} : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %85 = stablehlo.reshape %84 : (tensor<16x64xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %86 = stablehlo.composite "tessera.rms_norm" %81, %arg27 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.1} : (tensor<16x4x32xf32>, tensor<32xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %87 = stablehlo.composite "tessera.rms_norm" %83, %arg28 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.2} : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %88 = stablehlo.composite "tessera.rope" %86, %7, %8 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.0} : (tensor<16x4x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %89 = stablehlo.composite "tessera.rope" %87, %7, %8 {composite_attributes = {interleaved = false, rotary_dim = 32 : i64}, decomposition = @tessera.rope.1} : (tensor<16x2x32xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %90 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.2.attn")
    %91 = stablehlo.broadcast_in_dim %arg36, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.2.attn")
    %92 = stablehlo.compare  LT, %90, %91,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.2.attn")
    %93 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %94 = stablehlo.broadcast_in_dim %93, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %95 = stablehlo.select %92, %89, %94 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.2.attn")
    %96 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %97 = stablehlo.pad %95, %96, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %98 = stablehlo.iota dim = 0 : tensor<16x2x32xi32> loc("layer.2.attn")
    %99 = stablehlo.broadcast_in_dim %arg36, dims = [] : (tensor<i32>) -> tensor<16x2x32xi32> loc("layer.2.attn")
    %100 = stablehlo.compare  LT, %98, %99,  SIGNED : (tensor<16x2x32xi32>, tensor<16x2x32xi32>) -> tensor<16x2x32xi1> loc("layer.2.attn")
    %101 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %102 = stablehlo.broadcast_in_dim %101, dims = [] : (tensor<f32>) -> tensor<16x2x32xf32> loc("layer.2.attn")
    %103 = stablehlo.select %100, %85, %102 : tensor<16x2x32xi1>, tensor<16x2x32xf32> loc("layer.2.attn")
    %104 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("layer.2.attn")
    %105 = stablehlo.pad %103, %104, low = [0, 0, 0], high = [16, 0, 0], interior = [0, 0, 0] : (tensor<16x2x32xf32>, tensor<f32>) -> tensor<32x2x32xf32> loc("layer.2.attn")
    %106 = stablehlo.constant dense<0> : tensor<i32> loc("layer.2.attn")
    %107 = stablehlo.composite "tessera.attention" %88, %89, %85, %106 {composite_attributes = {causal = true, has_bias = false, scale = 0.17677669529663687 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x4x32xf32>, tensor<16x2x32xf32>, tensor<16x2x32xf32>, tensor<i32>) -> tensor<16x4x32xf32> loc("layer.2.attn")
    %108 = stablehlo.reshape %107 : (tensor<16x4x32xf32>) -> tensor<16x128xf32> loc("layer.2.attn")
    %109 = stablehlo.composite "tessera.linear" %108, %arg29 {decomposition = @tessera.linear.2} : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32> loc("layer.2.attn")
    %110 = stablehlo.add %78, %109 : tensor<16x64xf32> loc("layer.2.attn")
    %111 = stablehlo.composite "tessera.rms_norm" %110, %arg30 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.0} : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %112 = stablehlo.composite "tessera.gated_mlp" %111, %arg31, %arg32, %arg33 {composite_attributes = {activation = "silu"}, decomposition = @tessera.gated_mlp.0} : (tensor<16x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<16x64xf32> loc("layer.2.mlp")
    %113 = stablehlo.add %110, %112 : tensor<16x64xf32> loc("layer.2.mlp")
    %114 = stablehlo.constant dense<1> : tensor<i32> loc("last_token")
    %115 = stablehlo.subtract %arg36, %114 : tensor<i32> loc("last_token")
    %116 = stablehlo.constant dense<0> : tensor<i32> loc("last_token")
    %117 = stablehlo.dynamic_slice %113, %115, %116, sizes = [1, 64] : (tensor<16x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32> loc("last_token")
    %118 = stablehlo.composite "tessera.rms_norm" %117, %arg34 {composite_attributes = {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64}, decomposition = @tessera.rms_norm.3} : (tensor<1x64xf32>, tensor<64xf32>) -> tensor<1x64xf32> loc("lm_head")
    %119 = stablehlo.composite "tessera.linear" %118, %arg0 {decomposition = @tessera.linear.3} : (tensor<1x64xf32>, tensor<1344x64xf32>) -> tensor<1x1344xf32> loc("lm_head")
    %120 = stablehlo.reshape %119 : (tensor<1x1344xf32>) -> tensor<1344xf32> loc("lm_head")
    %121 = stablehlo.reshape %27 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %122 = stablehlo.reshape %62 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %123 = stablehlo.reshape %97 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %124 = stablehlo.concatenate %121, %122, %123, dim = 0 : (tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>) -> tensor<3x32x2x32xf32> loc("kv")
    %125 = stablehlo.reshape %35 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %126 = stablehlo.reshape %70 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %127 = stablehlo.reshape %105 : (tensor<32x2x32xf32>) -> tensor<1x32x2x32xf32> loc("kv")
    %128 = stablehlo.concatenate %125, %126, %127, dim = 0 : (tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>) -> tensor<3x32x2x32xf32> loc("kv")
    return %120, %124, %128 : tensor<1344xf32>, tensor<3x32x2x32xf32>, tensor<3x32x2x32xf32>
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
