module @vision_main_p16 {
  func.func public @main(%arg0: tensor<48x1536xf32> {tessera.name = "model.visual.patch_embed.proj.weight", tessera.role = "weight"}, %arg1: tensor<48xf32> {tessera.name = "model.visual.patch_embed.proj.bias", tessera.role = "weight"}, %arg2: tensor<64x48xf32> {tessera.name = "model.visual.pos_embed.weight", tessera.role = "weight"}, %arg3: tensor<48xf32> {tessera.name = "model.visual.blocks.0.norm1.weight", tessera.role = "weight"}, %arg4: tensor<48xf32> {tessera.name = "model.visual.blocks.0.norm1.bias", tessera.role = "weight"}, %arg5: tensor<144x48xf32> {tessera.name = "model.visual.blocks.0.attn.qkv.weight", tessera.role = "weight"}, %arg6: tensor<144xf32> {tessera.name = "model.visual.blocks.0.attn.qkv.bias", tessera.role = "weight"}, %arg7: tensor<48x48xf32> {tessera.name = "model.visual.blocks.0.attn.proj.weight", tessera.role = "weight"}, %arg8: tensor<48xf32> {tessera.name = "model.visual.blocks.0.attn.proj.bias", tessera.role = "weight"}, %arg9: tensor<48xf32> {tessera.name = "model.visual.blocks.0.norm2.weight", tessera.role = "weight"}, %arg10: tensor<48xf32> {tessera.name = "model.visual.blocks.0.norm2.bias", tessera.role = "weight"}, %arg11: tensor<96x48xf32> {tessera.name = "model.visual.blocks.0.mlp.linear_fc1.weight", tessera.role = "weight"}, %arg12: tensor<96xf32> {tessera.name = "model.visual.blocks.0.mlp.linear_fc1.bias", tessera.role = "weight"}, %arg13: tensor<48x96xf32> {tessera.name = "model.visual.blocks.0.mlp.linear_fc2.weight", tessera.role = "weight"}, %arg14: tensor<48xf32> {tessera.name = "model.visual.blocks.0.mlp.linear_fc2.bias", tessera.role = "weight"}, %arg15: tensor<48xf32> {tessera.name = "model.visual.blocks.1.norm1.weight", tessera.role = "weight"}, %arg16: tensor<48xf32> {tessera.name = "model.visual.blocks.1.norm1.bias", tessera.role = "weight"}, %arg17: tensor<144x48xf32> {tessera.name = "model.visual.blocks.1.attn.qkv.weight", tessera.role = "weight"}, %arg18: tensor<144xf32> {tessera.name = "model.visual.blocks.1.attn.qkv.bias", tessera.role = "weight"}, %arg19: tensor<48x48xf32> {tessera.name = "model.visual.blocks.1.attn.proj.weight", tessera.role = "weight"}, %arg20: tensor<48xf32> {tessera.name = "model.visual.blocks.1.attn.proj.bias", tessera.role = "weight"}, %arg21: tensor<48xf32> {tessera.name = "model.visual.blocks.1.norm2.weight", tessera.role = "weight"}, %arg22: tensor<48xf32> {tessera.name = "model.visual.blocks.1.norm2.bias", tessera.role = "weight"}, %arg23: tensor<96x48xf32> {tessera.name = "model.visual.blocks.1.mlp.linear_fc1.weight", tessera.role = "weight"}, %arg24: tensor<96xf32> {tessera.name = "model.visual.blocks.1.mlp.linear_fc1.bias", tessera.role = "weight"}, %arg25: tensor<48x96xf32> {tessera.name = "model.visual.blocks.1.mlp.linear_fc2.weight", tessera.role = "weight"}, %arg26: tensor<48xf32> {tessera.name = "model.visual.blocks.1.mlp.linear_fc2.bias", tessera.role = "weight"}, %arg27: tensor<48xf32> {tessera.name = "model.visual.blocks.2.norm1.weight", tessera.role = "weight"}, %arg28: tensor<48xf32> {tessera.name = "model.visual.blocks.2.norm1.bias", tessera.role = "weight"}, %arg29: tensor<144x48xf32> {tessera.name = "model.visual.blocks.2.attn.qkv.weight", tessera.role = "weight"}, %arg30: tensor<144xf32> {tessera.name = "model.visual.blocks.2.attn.qkv.bias", tessera.role = "weight"}, %arg31: tensor<48x48xf32> {tessera.name = "model.visual.blocks.2.attn.proj.weight", tessera.role = "weight"}, %arg32: tensor<48xf32> {tessera.name = "model.visual.blocks.2.attn.proj.bias", tessera.role = "weight"}, %arg33: tensor<48xf32> {tessera.name = "model.visual.blocks.2.norm2.weight", tessera.role = "weight"}, %arg34: tensor<48xf32> {tessera.name = "model.visual.blocks.2.norm2.bias", tessera.role = "weight"}, %arg35: tensor<96x48xf32> {tessera.name = "model.visual.blocks.2.mlp.linear_fc1.weight", tessera.role = "weight"}, %arg36: tensor<96xf32> {tessera.name = "model.visual.blocks.2.mlp.linear_fc1.bias", tessera.role = "weight"}, %arg37: tensor<48x96xf32> {tessera.name = "model.visual.blocks.2.mlp.linear_fc2.weight", tessera.role = "weight"}, %arg38: tensor<48xf32> {tessera.name = "model.visual.blocks.2.mlp.linear_fc2.bias", tessera.role = "weight"}, %arg39: tensor<48xf32> {tessera.name = "model.visual.blocks.3.norm1.weight", tessera.role = "weight"}, %arg40: tensor<48xf32> {tessera.name = "model.visual.blocks.3.norm1.bias", tessera.role = "weight"}, %arg41: tensor<144x48xf32> {tessera.name = "model.visual.blocks.3.attn.qkv.weight", tessera.role = "weight"}, %arg42: tensor<144xf32> {tessera.name = "model.visual.blocks.3.attn.qkv.bias", tessera.role = "weight"}, %arg43: tensor<48x48xf32> {tessera.name = "model.visual.blocks.3.attn.proj.weight", tessera.role = "weight"}, %arg44: tensor<48xf32> {tessera.name = "model.visual.blocks.3.attn.proj.bias", tessera.role = "weight"}, %arg45: tensor<48xf32> {tessera.name = "model.visual.blocks.3.norm2.weight", tessera.role = "weight"}, %arg46: tensor<48xf32> {tessera.name = "model.visual.blocks.3.norm2.bias", tessera.role = "weight"}, %arg47: tensor<96x48xf32> {tessera.name = "model.visual.blocks.3.mlp.linear_fc1.weight", tessera.role = "weight"}, %arg48: tensor<96xf32> {tessera.name = "model.visual.blocks.3.mlp.linear_fc1.bias", tessera.role = "weight"}, %arg49: tensor<48x96xf32> {tessera.name = "model.visual.blocks.3.mlp.linear_fc2.weight", tessera.role = "weight"}, %arg50: tensor<48xf32> {tessera.name = "model.visual.blocks.3.mlp.linear_fc2.bias", tessera.role = "weight"}, %arg51: tensor<48xf32> {tessera.name = "model.visual.merger.norm.weight", tessera.role = "weight"}, %arg52: tensor<48xf32> {tessera.name = "model.visual.merger.norm.bias", tessera.role = "weight"}, %arg53: tensor<192x192xf32> {tessera.name = "model.visual.merger.linear_fc1.weight", tessera.role = "weight"}, %arg54: tensor<192xf32> {tessera.name = "model.visual.merger.linear_fc1.bias", tessera.role = "weight"}, %arg55: tensor<64x192xf32> {tessera.name = "model.visual.merger.linear_fc2.weight", tessera.role = "weight"}, %arg56: tensor<64xf32> {tessera.name = "model.visual.merger.linear_fc2.bias", tessera.role = "weight"}, %arg57: tensor<192xf32> {tessera.name = "model.visual.deepstack_merger_list.0.norm.weight", tessera.role = "weight"}, %arg58: tensor<192xf32> {tessera.name = "model.visual.deepstack_merger_list.0.norm.bias", tessera.role = "weight"}, %arg59: tensor<192x192xf32> {tessera.name = "model.visual.deepstack_merger_list.0.linear_fc1.weight", tessera.role = "weight"}, %arg60: tensor<192xf32> {tessera.name = "model.visual.deepstack_merger_list.0.linear_fc1.bias", tessera.role = "weight"}, %arg61: tensor<64x192xf32> {tessera.name = "model.visual.deepstack_merger_list.0.linear_fc2.weight", tessera.role = "weight"}, %arg62: tensor<64xf32> {tessera.name = "model.visual.deepstack_merger_list.0.linear_fc2.bias", tessera.role = "weight"}, %arg63: tensor<192xf32> {tessera.name = "model.visual.deepstack_merger_list.1.norm.weight", tessera.role = "weight"}, %arg64: tensor<192xf32> {tessera.name = "model.visual.deepstack_merger_list.1.norm.bias", tessera.role = "weight"}, %arg65: tensor<192x192xf32> {tessera.name = "model.visual.deepstack_merger_list.1.linear_fc1.weight", tessera.role = "weight"}, %arg66: tensor<192xf32> {tessera.name = "model.visual.deepstack_merger_list.1.linear_fc1.bias", tessera.role = "weight"}, %arg67: tensor<64x192xf32> {tessera.name = "model.visual.deepstack_merger_list.1.linear_fc2.weight", tessera.role = "weight"}, %arg68: tensor<64xf32> {tessera.name = "model.visual.deepstack_merger_list.1.linear_fc2.bias", tessera.role = "weight"}, %arg69: tensor<16x1536xf32> {tessera.name = "pixel_values", tessera.role = "input"}, %arg70: tensor<16x2xi32> {tessera.name = "positions", tessera.role = "input"}, %arg71: tensor<16xi32> {tessera.name = "segments", tessera.role = "input"}, %arg72: tensor<4x16xi32> {tessera.name = "pos_index", tessera.role = "input"}, %arg73: tensor<4x16xf32> {tessera.name = "pos_weight", tessera.role = "input"}, %arg74: tensor<i32> {tessera.name = "count", tessera.role = "input"}) -> (tensor<4x64xf32>, tensor<2x4x64xf32>) {
    %0 = stablehlo.composite "tessera.linear" %arg69, %arg0, %arg1 {decomposition = @tessera.linear.0} : (tensor<16x1536xf32>, tensor<48x1536xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.patch_embed")
    %1 = stablehlo.composite "tessera.embedding" %arg2, %arg72 {decomposition = @tessera.embedding.0} : (tensor<64x48xf32>, tensor<4x16xi32>) -> tensor<4x16x48xf32> loc("vision.pos_embed")
    %2 = stablehlo.broadcast_in_dim %arg73, dims = [0, 1] : (tensor<4x16xf32>) -> tensor<4x16x48xf32> loc("vision.pos_embed")
    %3 = stablehlo.multiply %1, %2 : tensor<4x16x48xf32> loc("vision.pos_embed")
    %4 = stablehlo.slice %3 [0:1, 0:16, 0:48] : (tensor<4x16x48xf32>) -> tensor<1x16x48xf32> loc("vision.pos_embed")
    %5 = stablehlo.reshape %4 : (tensor<1x16x48xf32>) -> tensor<16x48xf32> loc("vision.pos_embed")
    %6 = stablehlo.slice %3 [1:2, 0:16, 0:48] : (tensor<4x16x48xf32>) -> tensor<1x16x48xf32> loc("vision.pos_embed")
    %7 = stablehlo.reshape %6 : (tensor<1x16x48xf32>) -> tensor<16x48xf32> loc("vision.pos_embed")
    %8 = stablehlo.add %5, %7 : tensor<16x48xf32> loc("vision.pos_embed")
    %9 = stablehlo.slice %3 [2:3, 0:16, 0:48] : (tensor<4x16x48xf32>) -> tensor<1x16x48xf32> loc("vision.pos_embed")
    %10 = stablehlo.reshape %9 : (tensor<1x16x48xf32>) -> tensor<16x48xf32> loc("vision.pos_embed")
    %11 = stablehlo.add %8, %10 : tensor<16x48xf32> loc("vision.pos_embed")
    %12 = stablehlo.slice %3 [3:4, 0:16, 0:48] : (tensor<4x16x48xf32>) -> tensor<1x16x48xf32> loc("vision.pos_embed")
    %13 = stablehlo.reshape %12 : (tensor<1x16x48xf32>) -> tensor<16x48xf32> loc("vision.pos_embed")
    %14 = stablehlo.add %11, %13 : tensor<16x48xf32> loc("vision.pos_embed")
    %15 = stablehlo.add %0, %14 : tensor<16x48xf32> loc("vision.pos_embed")
    %16 = stablehlo.constant dense<"0x0000803FCDCCCC3D0AD7233C6F12833A"> : tensor<4xf32> loc("vision.rope")
    %17 = stablehlo.convert %arg70 : (tensor<16x2xi32>) -> tensor<16x2xf32> loc("vision.rope")
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<16x2xf32>) -> tensor<16x2x4xf32> loc("vision.rope")
    %19 = stablehlo.broadcast_in_dim %16, dims = [2] : (tensor<4xf32>) -> tensor<16x2x4xf32> loc("vision.rope")
    %20 = stablehlo.multiply %18, %19 : tensor<16x2x4xf32> loc("vision.rope")
    %21 = stablehlo.reshape %20 : (tensor<16x2x4xf32>) -> tensor<16x8xf32> loc("vision.rope")
    %22 = stablehlo.cosine %21 : tensor<16x8xf32> loc("vision.rope")
    %23 = stablehlo.sine %21 : tensor<16x8xf32> loc("vision.rope")
    %24 = stablehlo.broadcast_in_dim %arg71, dims = [0] : (tensor<16xi32>) -> tensor<16x16xi32> loc("vision.mask")
    %25 = stablehlo.broadcast_in_dim %arg71, dims = [1] : (tensor<16xi32>) -> tensor<16x16xi32> loc("vision.mask")
    %26 = stablehlo.compare  EQ, %24, %25,  SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1> loc("vision.mask")
    %27 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("vision.mask")
    %28 = stablehlo.broadcast_in_dim %27, dims = [] : (tensor<f32>) -> tensor<16x16xf32> loc("vision.mask")
    %29 = stablehlo.constant dense<0xFF800000> : tensor<f32> loc("vision.mask")
    %30 = stablehlo.broadcast_in_dim %29, dims = [] : (tensor<f32>) -> tensor<16x16xf32> loc("vision.mask")
    %31 = stablehlo.select %26, %28, %30 : tensor<16x16xi1>, tensor<16x16xf32> loc("vision.mask")
    %32 = stablehlo.composite "tessera.layer_norm" %15, %arg3, %arg4 {composite_attributes = {eps = 1.0e-06 : f64}, decomposition = @tessera.layer_norm.0} : (tensor<16x48xf32>, tensor<48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.0")
    %33 = stablehlo.composite "tessera.linear" %32, %arg5, %arg6 {decomposition = @tessera.linear.1} : (tensor<16x48xf32>, tensor<144x48xf32>, tensor<144xf32>) -> tensor<16x144xf32> loc("vision.block.0")
    %34 = stablehlo.slice %33 [0:16, 0:48] : (tensor<16x144xf32>) -> tensor<16x48xf32> loc("vision.block.0")
    %35 = stablehlo.reshape %34 : (tensor<16x48xf32>) -> tensor<16x3x16xf32> loc("vision.block.0")
    %36 = stablehlo.slice %33 [0:16, 48:96] : (tensor<16x144xf32>) -> tensor<16x48xf32> loc("vision.block.0")
    %37 = stablehlo.reshape %36 : (tensor<16x48xf32>) -> tensor<16x3x16xf32> loc("vision.block.0")
    %38 = stablehlo.slice %33 [0:16, 96:144] : (tensor<16x144xf32>) -> tensor<16x48xf32> loc("vision.block.0")
    %39 = stablehlo.reshape %38 : (tensor<16x48xf32>) -> tensor<16x3x16xf32> loc("vision.block.0")
    %40 = stablehlo.composite "tessera.rope" %35, %22, %23 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x3x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x3x16xf32> loc("vision.block.0")
    %41 = stablehlo.composite "tessera.rope" %37, %22, %23 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x3x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x3x16xf32> loc("vision.block.0")
    %42 = stablehlo.composite "tessera.attention" %40, %41, %39, %31 {composite_attributes = {causal = false, has_bias = true, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x3x16xf32>, tensor<16x3x16xf32>, tensor<16x3x16xf32>, tensor<16x16xf32>) -> tensor<16x3x16xf32> loc("vision.block.0")
    %43 = stablehlo.reshape %42 : (tensor<16x3x16xf32>) -> tensor<16x48xf32> loc("vision.block.0")
    %44 = stablehlo.composite "tessera.linear" %43, %arg7, %arg8 {decomposition = @tessera.linear.2} : (tensor<16x48xf32>, tensor<48x48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.0")
    %45 = stablehlo.add %15, %44 : tensor<16x48xf32> loc("vision.block.0")
    %46 = stablehlo.composite "tessera.layer_norm" %45, %arg9, %arg10 {composite_attributes = {eps = 1.0e-06 : f64}, decomposition = @tessera.layer_norm.0} : (tensor<16x48xf32>, tensor<48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.0")
    %47 = stablehlo.composite "tessera.linear" %46, %arg11, %arg12 {decomposition = @tessera.linear.3} : (tensor<16x48xf32>, tensor<96x48xf32>, tensor<96xf32>) -> tensor<16x96xf32> loc("vision.block.0")
    %48 = stablehlo.multiply %47, %47 : tensor<16x96xf32> loc("vision.block.0")
    %49 = stablehlo.multiply %48, %47 : tensor<16x96xf32> loc("vision.block.0")
    %50 = stablehlo.constant dense<0x3D372713> : tensor<f32> loc("vision.block.0")
    %51 = stablehlo.broadcast_in_dim %50, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.0")
    %52 = stablehlo.multiply %49, %51 : tensor<16x96xf32> loc("vision.block.0")
    %53 = stablehlo.add %47, %52 : tensor<16x96xf32> loc("vision.block.0")
    %54 = stablehlo.constant dense<0x3F4C422A> : tensor<f32> loc("vision.block.0")
    %55 = stablehlo.broadcast_in_dim %54, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.0")
    %56 = stablehlo.multiply %53, %55 : tensor<16x96xf32> loc("vision.block.0")
    %57 = stablehlo.tanh %56 : tensor<16x96xf32> loc("vision.block.0")
    %58 = stablehlo.constant dense<0x3F800000> : tensor<f32> loc("vision.block.0")
    %59 = stablehlo.broadcast_in_dim %58, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.0")
    %60 = stablehlo.add %57, %59 : tensor<16x96xf32> loc("vision.block.0")
    %61 = stablehlo.constant dense<0x3F000000> : tensor<f32> loc("vision.block.0")
    %62 = stablehlo.broadcast_in_dim %61, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.0")
    %63 = stablehlo.multiply %47, %62 : tensor<16x96xf32> loc("vision.block.0")
    %64 = stablehlo.multiply %63, %60 : tensor<16x96xf32> loc("vision.block.0")
    %65 = stablehlo.composite "tessera.linear" %64, %arg13, %arg14 {decomposition = @tessera.linear.4} : (tensor<16x96xf32>, tensor<48x96xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.0")
    %66 = stablehlo.add %45, %65 : tensor<16x48xf32> loc("vision.block.0")
    %67 = stablehlo.composite "tessera.layer_norm" %66, %arg15, %arg16 {composite_attributes = {eps = 1.0e-06 : f64}, decomposition = @tessera.layer_norm.0} : (tensor<16x48xf32>, tensor<48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.1")
    %68 = stablehlo.composite "tessera.linear" %67, %arg17, %arg18 {decomposition = @tessera.linear.1} : (tensor<16x48xf32>, tensor<144x48xf32>, tensor<144xf32>) -> tensor<16x144xf32> loc("vision.block.1")
    %69 = stablehlo.slice %68 [0:16, 0:48] : (tensor<16x144xf32>) -> tensor<16x48xf32> loc("vision.block.1")
    %70 = stablehlo.reshape %69 : (tensor<16x48xf32>) -> tensor<16x3x16xf32> loc("vision.block.1")
    %71 = stablehlo.slice %68 [0:16, 48:96] : (tensor<16x144xf32>) -> tensor<16x48xf32> loc("vision.block.1")
    %72 = stablehlo.reshape %71 : (tensor<16x48xf32>) -> tensor<16x3x16xf32> loc("vision.block.1")
    %73 = stablehlo.slice %68 [0:16, 96:144] : (tensor<16x144xf32>) -> tensor<16x48xf32> loc("vision.block.1")
    %74 = stablehlo.reshape %73 : (tensor<16x48xf32>) -> tensor<16x3x16xf32> loc("vision.block.1")
    %75 = stablehlo.composite "tessera.rope" %70, %22, %23 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x3x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x3x16xf32> loc("vision.block.1")
    %76 = stablehlo.composite "tessera.rope" %72, %22, %23 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x3x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x3x16xf32> loc("vision.block.1")
    %77 = stablehlo.composite "tessera.attention" %75, %76, %74, %31 {composite_attributes = {causal = false, has_bias = true, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x3x16xf32>, tensor<16x3x16xf32>, tensor<16x3x16xf32>, tensor<16x16xf32>) -> tensor<16x3x16xf32> loc("vision.block.1")
    %78 = stablehlo.reshape %77 : (tensor<16x3x16xf32>) -> tensor<16x48xf32> loc("vision.block.1")
    %79 = stablehlo.composite "tessera.linear" %78, %arg19, %arg20 {decomposition = @tessera.linear.2} : (tensor<16x48xf32>, tensor<48x48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.1")
    %80 = stablehlo.add %66, %79 : tensor<16x48xf32> loc("vision.block.1")
    %81 = stablehlo.composite "tessera.layer_norm" %80, %arg21, %arg22 {composite_attributes = {eps = 1.0e-06 : f64}, decomposition = @tessera.layer_norm.0} : (tensor<16x48xf32>, tensor<48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.1")
    %82 = stablehlo.composite "tessera.linear" %81, %arg23, %arg24 {decomposition = @tessera.linear.3} : (tensor<16x48xf32>, tensor<96x48xf32>, tensor<96xf32>) -> tensor<16x96xf32> loc("vision.block.1")
    %83 = stablehlo.multiply %82, %82 : tensor<16x96xf32> loc("vision.block.1")
    %84 = stablehlo.multiply %83, %82 : tensor<16x96xf32> loc("vision.block.1")
    %85 = stablehlo.constant dense<0x3D372713> : tensor<f32> loc("vision.block.1")
    %86 = stablehlo.broadcast_in_dim %85, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.1")
    %87 = stablehlo.multiply %84, %86 : tensor<16x96xf32> loc("vision.block.1")
    %88 = stablehlo.add %82, %87 : tensor<16x96xf32> loc("vision.block.1")
    %89 = stablehlo.constant dense<0x3F4C422A> : tensor<f32> loc("vision.block.1")
    %90 = stablehlo.broadcast_in_dim %89, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.1")
    %91 = stablehlo.multiply %88, %90 : tensor<16x96xf32> loc("vision.block.1")
    %92 = stablehlo.tanh %91 : tensor<16x96xf32> loc("vision.block.1")
    %93 = stablehlo.constant dense<0x3F800000> : tensor<f32> loc("vision.block.1")
    %94 = stablehlo.broadcast_in_dim %93, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.1")
    %95 = stablehlo.add %92, %94 : tensor<16x96xf32> loc("vision.block.1")
    %96 = stablehlo.constant dense<0x3F000000> : tensor<f32> loc("vision.block.1")
    %97 = stablehlo.broadcast_in_dim %96, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.1")
    %98 = stablehlo.multiply %82, %97 : tensor<16x96xf32> loc("vision.block.1")
    %99 = stablehlo.multiply %98, %95 : tensor<16x96xf32> loc("vision.block.1")
    %100 = stablehlo.composite "tessera.linear" %99, %arg25, %arg26 {decomposition = @tessera.linear.4} : (tensor<16x96xf32>, tensor<48x96xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.1")
    %101 = stablehlo.add %80, %100 : tensor<16x48xf32> loc("vision.block.1")
    %102 = stablehlo.reshape %101 : (tensor<16x48xf32>) -> tensor<4x192xf32> loc("vision.deepstack.0")
    %103 = stablehlo.composite "tessera.layer_norm" %102, %arg57, %arg58 {composite_attributes = {eps = 1.0e-06 : f64}, decomposition = @tessera.layer_norm.1} : (tensor<4x192xf32>, tensor<192xf32>, tensor<192xf32>) -> tensor<4x192xf32> loc("vision.deepstack.0")
    %104 = stablehlo.composite "tessera.linear" %103, %arg59, %arg60 {decomposition = @tessera.linear.5} : (tensor<4x192xf32>, tensor<192x192xf32>, tensor<192xf32>) -> tensor<4x192xf32> loc("vision.deepstack.0")
    %105 = stablehlo.constant dense<0x3F3504F3> : tensor<f32> loc("vision.deepstack.0")
    %106 = stablehlo.broadcast_in_dim %105, dims = [] : (tensor<f32>) -> tensor<4x192xf32> loc("vision.deepstack.0")
    %107 = stablehlo.multiply %104, %106 : tensor<4x192xf32> loc("vision.deepstack.0")
    %108 = stablehlo.composite "tessera.erf" %107 {decomposition = @tessera.erf.0} : (tensor<4x192xf32>) -> tensor<4x192xf32> loc("vision.deepstack.0")
    %109 = stablehlo.constant dense<0x3F800000> : tensor<f32> loc("vision.deepstack.0")
    %110 = stablehlo.broadcast_in_dim %109, dims = [] : (tensor<f32>) -> tensor<4x192xf32> loc("vision.deepstack.0")
    %111 = stablehlo.add %108, %110 : tensor<4x192xf32> loc("vision.deepstack.0")
    %112 = stablehlo.constant dense<0x3F000000> : tensor<f32> loc("vision.deepstack.0")
    %113 = stablehlo.broadcast_in_dim %112, dims = [] : (tensor<f32>) -> tensor<4x192xf32> loc("vision.deepstack.0")
    %114 = stablehlo.multiply %104, %113 : tensor<4x192xf32> loc("vision.deepstack.0")
    %115 = stablehlo.multiply %114, %111 : tensor<4x192xf32> loc("vision.deepstack.0")
    %116 = stablehlo.composite "tessera.linear" %115, %arg61, %arg62 {decomposition = @tessera.linear.6} : (tensor<4x192xf32>, tensor<64x192xf32>, tensor<64xf32>) -> tensor<4x64xf32> loc("vision.deepstack.0")
    %117 = stablehlo.reshape %116 : (tensor<4x64xf32>) -> tensor<1x4x64xf32> loc("vision.deepstack.0")
    %118 = stablehlo.composite "tessera.layer_norm" %101, %arg27, %arg28 {composite_attributes = {eps = 1.0e-06 : f64}, decomposition = @tessera.layer_norm.0} : (tensor<16x48xf32>, tensor<48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.2")
    %119 = stablehlo.composite "tessera.linear" %118, %arg29, %arg30 {decomposition = @tessera.linear.1} : (tensor<16x48xf32>, tensor<144x48xf32>, tensor<144xf32>) -> tensor<16x144xf32> loc("vision.block.2")
    %120 = stablehlo.slice %119 [0:16, 0:48] : (tensor<16x144xf32>) -> tensor<16x48xf32> loc("vision.block.2")
    %121 = stablehlo.reshape %120 : (tensor<16x48xf32>) -> tensor<16x3x16xf32> loc("vision.block.2")
    %122 = stablehlo.slice %119 [0:16, 48:96] : (tensor<16x144xf32>) -> tensor<16x48xf32> loc("vision.block.2")
    %123 = stablehlo.reshape %122 : (tensor<16x48xf32>) -> tensor<16x3x16xf32> loc("vision.block.2")
    %124 = stablehlo.slice %119 [0:16, 96:144] : (tensor<16x144xf32>) -> tensor<16x48xf32> loc("vision.block.2")
    %125 = stablehlo.reshape %124 : (tensor<16x48xf32>) -> tensor<16x3x16xf32> loc("vision.block.2")
    %126 = stablehlo.composite "tessera.rope" %121, %22, %23 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x3x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x3x16xf32> loc("vision.block.2")
    %127 = stablehlo.composite "tessera.rope" %123, %22, %23 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x3x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x3x16xf32> loc("vision.block.2")
    %128 = stablehlo.composite "tessera.attention" %126, %127, %125, %31 {composite_attributes = {causal = false, has_bias = true, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x3x16xf32>, tensor<16x3x16xf32>, tensor<16x3x16xf32>, tensor<16x16xf32>) -> tensor<16x3x16xf32> loc("vision.block.2")
    %129 = stablehlo.reshape %128 : (tensor<16x3x16xf32>) -> tensor<16x48xf32> loc("vision.block.2")
    %130 = stablehlo.composite "tessera.linear" %129, %arg31, %arg32 {decomposition = @tessera.linear.2} : (tensor<16x48xf32>, tensor<48x48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.2")
    %131 = stablehlo.add %101, %130 : tensor<16x48xf32> loc("vision.block.2")
    %132 = stablehlo.composite "tessera.layer_norm" %131, %arg33, %arg34 {composite_attributes = {eps = 1.0e-06 : f64}, decomposition = @tessera.layer_norm.0} : (tensor<16x48xf32>, tensor<48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.2")
    %133 = stablehlo.composite "tessera.linear" %132, %arg35, %arg36 {decomposition = @tessera.linear.3} : (tensor<16x48xf32>, tensor<96x48xf32>, tensor<96xf32>) -> tensor<16x96xf32> loc("vision.block.2")
    %134 = stablehlo.multiply %133, %133 : tensor<16x96xf32> loc("vision.block.2")
    %135 = stablehlo.multiply %134, %133 : tensor<16x96xf32> loc("vision.block.2")
    %136 = stablehlo.constant dense<0x3D372713> : tensor<f32> loc("vision.block.2")
    %137 = stablehlo.broadcast_in_dim %136, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.2")
    %138 = stablehlo.multiply %135, %137 : tensor<16x96xf32> loc("vision.block.2")
    %139 = stablehlo.add %133, %138 : tensor<16x96xf32> loc("vision.block.2")
    %140 = stablehlo.constant dense<0x3F4C422A> : tensor<f32> loc("vision.block.2")
    %141 = stablehlo.broadcast_in_dim %140, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.2")
    %142 = stablehlo.multiply %139, %141 : tensor<16x96xf32> loc("vision.block.2")
    %143 = stablehlo.tanh %142 : tensor<16x96xf32> loc("vision.block.2")
    %144 = stablehlo.constant dense<0x3F800000> : tensor<f32> loc("vision.block.2")
    %145 = stablehlo.broadcast_in_dim %144, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.2")
    %146 = stablehlo.add %143, %145 : tensor<16x96xf32> loc("vision.block.2")
    %147 = stablehlo.constant dense<0x3F000000> : tensor<f32> loc("vision.block.2")
    %148 = stablehlo.broadcast_in_dim %147, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.2")
    %149 = stablehlo.multiply %133, %148 : tensor<16x96xf32> loc("vision.block.2")
    %150 = stablehlo.multiply %149, %146 : tensor<16x96xf32> loc("vision.block.2")
    %151 = stablehlo.composite "tessera.linear" %150, %arg37, %arg38 {decomposition = @tessera.linear.4} : (tensor<16x96xf32>, tensor<48x96xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.2")
    %152 = stablehlo.add %131, %151 : tensor<16x48xf32> loc("vision.block.2")
    %153 = stablehlo.reshape %152 : (tensor<16x48xf32>) -> tensor<4x192xf32> loc("vision.deepstack.1")
    %154 = stablehlo.composite "tessera.layer_norm" %153, %arg63, %arg64 {composite_attributes = {eps = 1.0e-06 : f64}, decomposition = @tessera.layer_norm.1} : (tensor<4x192xf32>, tensor<192xf32>, tensor<192xf32>) -> tensor<4x192xf32> loc("vision.deepstack.1")
    %155 = stablehlo.composite "tessera.linear" %154, %arg65, %arg66 {decomposition = @tessera.linear.5} : (tensor<4x192xf32>, tensor<192x192xf32>, tensor<192xf32>) -> tensor<4x192xf32> loc("vision.deepstack.1")
    %156 = stablehlo.constant dense<0x3F3504F3> : tensor<f32> loc("vision.deepstack.1")
    %157 = stablehlo.broadcast_in_dim %156, dims = [] : (tensor<f32>) -> tensor<4x192xf32> loc("vision.deepstack.1")
    %158 = stablehlo.multiply %155, %157 : tensor<4x192xf32> loc("vision.deepstack.1")
    %159 = stablehlo.composite "tessera.erf" %158 {decomposition = @tessera.erf.0} : (tensor<4x192xf32>) -> tensor<4x192xf32> loc("vision.deepstack.1")
    %160 = stablehlo.constant dense<0x3F800000> : tensor<f32> loc("vision.deepstack.1")
    %161 = stablehlo.broadcast_in_dim %160, dims = [] : (tensor<f32>) -> tensor<4x192xf32> loc("vision.deepstack.1")
    %162 = stablehlo.add %159, %161 : tensor<4x192xf32> loc("vision.deepstack.1")
    %163 = stablehlo.constant dense<0x3F000000> : tensor<f32> loc("vision.deepstack.1")
    %164 = stablehlo.broadcast_in_dim %163, dims = [] : (tensor<f32>) -> tensor<4x192xf32> loc("vision.deepstack.1")
    %165 = stablehlo.multiply %155, %164 : tensor<4x192xf32> loc("vision.deepstack.1")
    %166 = stablehlo.multiply %165, %162 : tensor<4x192xf32> loc("vision.deepstack.1")
    %167 = stablehlo.composite "tessera.linear" %166, %arg67, %arg68 {decomposition = @tessera.linear.6} : (tensor<4x192xf32>, tensor<64x192xf32>, tensor<64xf32>) -> tensor<4x64xf32> loc("vision.deepstack.1")
    %168 = stablehlo.reshape %167 : (tensor<4x64xf32>) -> tensor<1x4x64xf32> loc("vision.deepstack.1")
    %169 = stablehlo.composite "tessera.layer_norm" %152, %arg39, %arg40 {composite_attributes = {eps = 1.0e-06 : f64}, decomposition = @tessera.layer_norm.0} : (tensor<16x48xf32>, tensor<48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.3")
    %170 = stablehlo.composite "tessera.linear" %169, %arg41, %arg42 {decomposition = @tessera.linear.1} : (tensor<16x48xf32>, tensor<144x48xf32>, tensor<144xf32>) -> tensor<16x144xf32> loc("vision.block.3")
    %171 = stablehlo.slice %170 [0:16, 0:48] : (tensor<16x144xf32>) -> tensor<16x48xf32> loc("vision.block.3")
    %172 = stablehlo.reshape %171 : (tensor<16x48xf32>) -> tensor<16x3x16xf32> loc("vision.block.3")
    %173 = stablehlo.slice %170 [0:16, 48:96] : (tensor<16x144xf32>) -> tensor<16x48xf32> loc("vision.block.3")
    %174 = stablehlo.reshape %173 : (tensor<16x48xf32>) -> tensor<16x3x16xf32> loc("vision.block.3")
    %175 = stablehlo.slice %170 [0:16, 96:144] : (tensor<16x144xf32>) -> tensor<16x48xf32> loc("vision.block.3")
    %176 = stablehlo.reshape %175 : (tensor<16x48xf32>) -> tensor<16x3x16xf32> loc("vision.block.3")
    %177 = stablehlo.composite "tessera.rope" %172, %22, %23 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x3x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x3x16xf32> loc("vision.block.3")
    %178 = stablehlo.composite "tessera.rope" %174, %22, %23 {composite_attributes = {interleaved = false, rotary_dim = 16 : i64}, decomposition = @tessera.rope.0} : (tensor<16x3x16xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x3x16xf32> loc("vision.block.3")
    %179 = stablehlo.composite "tessera.attention" %177, %178, %176, %31 {composite_attributes = {causal = false, has_bias = true, scale = 0.25 : f64, softcap = 0.0 : f64}, decomposition = @tessera.attention.0} : (tensor<16x3x16xf32>, tensor<16x3x16xf32>, tensor<16x3x16xf32>, tensor<16x16xf32>) -> tensor<16x3x16xf32> loc("vision.block.3")
    %180 = stablehlo.reshape %179 : (tensor<16x3x16xf32>) -> tensor<16x48xf32> loc("vision.block.3")
    %181 = stablehlo.composite "tessera.linear" %180, %arg43, %arg44 {decomposition = @tessera.linear.2} : (tensor<16x48xf32>, tensor<48x48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.3")
    %182 = stablehlo.add %152, %181 : tensor<16x48xf32> loc("vision.block.3")
    %183 = stablehlo.composite "tessera.layer_norm" %182, %arg45, %arg46 {composite_attributes = {eps = 1.0e-06 : f64}, decomposition = @tessera.layer_norm.0} : (tensor<16x48xf32>, tensor<48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.3")
    %184 = stablehlo.composite "tessera.linear" %183, %arg47, %arg48 {decomposition = @tessera.linear.3} : (tensor<16x48xf32>, tensor<96x48xf32>, tensor<96xf32>) -> tensor<16x96xf32> loc("vision.block.3")
    %185 = stablehlo.multiply %184, %184 : tensor<16x96xf32> loc("vision.block.3")
    %186 = stablehlo.multiply %185, %184 : tensor<16x96xf32> loc("vision.block.3")
    %187 = stablehlo.constant dense<0x3D372713> : tensor<f32> loc("vision.block.3")
    %188 = stablehlo.broadcast_in_dim %187, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.3")
    %189 = stablehlo.multiply %186, %188 : tensor<16x96xf32> loc("vision.block.3")
    %190 = stablehlo.add %184, %189 : tensor<16x96xf32> loc("vision.block.3")
    %191 = stablehlo.constant dense<0x3F4C422A> : tensor<f32> loc("vision.block.3")
    %192 = stablehlo.broadcast_in_dim %191, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.3")
    %193 = stablehlo.multiply %190, %192 : tensor<16x96xf32> loc("vision.block.3")
    %194 = stablehlo.tanh %193 : tensor<16x96xf32> loc("vision.block.3")
    %195 = stablehlo.constant dense<0x3F800000> : tensor<f32> loc("vision.block.3")
    %196 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.3")
    %197 = stablehlo.add %194, %196 : tensor<16x96xf32> loc("vision.block.3")
    %198 = stablehlo.constant dense<0x3F000000> : tensor<f32> loc("vision.block.3")
    %199 = stablehlo.broadcast_in_dim %198, dims = [] : (tensor<f32>) -> tensor<16x96xf32> loc("vision.block.3")
    %200 = stablehlo.multiply %184, %199 : tensor<16x96xf32> loc("vision.block.3")
    %201 = stablehlo.multiply %200, %197 : tensor<16x96xf32> loc("vision.block.3")
    %202 = stablehlo.composite "tessera.linear" %201, %arg49, %arg50 {decomposition = @tessera.linear.4} : (tensor<16x96xf32>, tensor<48x96xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.block.3")
    %203 = stablehlo.add %182, %202 : tensor<16x48xf32> loc("vision.block.3")
    %204 = stablehlo.composite "tessera.layer_norm" %203, %arg51, %arg52 {composite_attributes = {eps = 1.0e-06 : f64}, decomposition = @tessera.layer_norm.0} : (tensor<16x48xf32>, tensor<48xf32>, tensor<48xf32>) -> tensor<16x48xf32> loc("vision.merger")
    %205 = stablehlo.reshape %204 : (tensor<16x48xf32>) -> tensor<4x192xf32> loc("vision.merger")
    %206 = stablehlo.composite "tessera.linear" %205, %arg53, %arg54 {decomposition = @tessera.linear.5} : (tensor<4x192xf32>, tensor<192x192xf32>, tensor<192xf32>) -> tensor<4x192xf32> loc("vision.merger")
    %207 = stablehlo.constant dense<0x3F3504F3> : tensor<f32> loc("vision.merger")
    %208 = stablehlo.broadcast_in_dim %207, dims = [] : (tensor<f32>) -> tensor<4x192xf32> loc("vision.merger")
    %209 = stablehlo.multiply %206, %208 : tensor<4x192xf32> loc("vision.merger")
    %210 = stablehlo.composite "tessera.erf" %209 {decomposition = @tessera.erf.0} : (tensor<4x192xf32>) -> tensor<4x192xf32> loc("vision.merger")
    %211 = stablehlo.constant dense<0x3F800000> : tensor<f32> loc("vision.merger")
    %212 = stablehlo.broadcast_in_dim %211, dims = [] : (tensor<f32>) -> tensor<4x192xf32> loc("vision.merger")
    %213 = stablehlo.add %210, %212 : tensor<4x192xf32> loc("vision.merger")
    %214 = stablehlo.constant dense<0x3F000000> : tensor<f32> loc("vision.merger")
    %215 = stablehlo.broadcast_in_dim %214, dims = [] : (tensor<f32>) -> tensor<4x192xf32> loc("vision.merger")
    %216 = stablehlo.multiply %206, %215 : tensor<4x192xf32> loc("vision.merger")
    %217 = stablehlo.multiply %216, %213 : tensor<4x192xf32> loc("vision.merger")
    %218 = stablehlo.composite "tessera.linear" %217, %arg55, %arg56 {decomposition = @tessera.linear.6} : (tensor<4x192xf32>, tensor<64x192xf32>, tensor<64xf32>) -> tensor<4x64xf32> loc("vision.merger")
    %219 = stablehlo.concatenate %117, %168, dim = 0 : (tensor<1x4x64xf32>, tensor<1x4x64xf32>) -> tensor<2x4x64xf32> loc("vision.deepstack")
    %220 = stablehlo.constant dense<4> : tensor<i32> loc("count")
    %221 = stablehlo.divide %arg74, %220 : tensor<i32> loc("count")
    %222 = stablehlo.iota dim = 0 : tensor<4x64xi32> loc("count")
    %223 = stablehlo.broadcast_in_dim %221, dims = [] : (tensor<i32>) -> tensor<4x64xi32> loc("count")
    %224 = stablehlo.compare  LT, %222, %223,  SIGNED : (tensor<4x64xi32>, tensor<4x64xi32>) -> tensor<4x64xi1> loc("count")
    %225 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("count")
    %226 = stablehlo.broadcast_in_dim %225, dims = [] : (tensor<f32>) -> tensor<4x64xf32> loc("count")
    %227 = stablehlo.select %224, %218, %226 : tensor<4x64xi1>, tensor<4x64xf32> loc("count")
    %228 = stablehlo.iota dim = 1 : tensor<2x4x64xi32> loc("count")
    %229 = stablehlo.broadcast_in_dim %221, dims = [] : (tensor<i32>) -> tensor<2x4x64xi32> loc("count")
    %230 = stablehlo.compare  LT, %228, %229,  SIGNED : (tensor<2x4x64xi32>, tensor<2x4x64xi32>) -> tensor<2x4x64xi1> loc("count")
    %231 = stablehlo.constant dense<0x00000000> : tensor<f32> loc("count")
    %232 = stablehlo.broadcast_in_dim %231, dims = [] : (tensor<f32>) -> tensor<2x4x64xf32> loc("count")
    %233 = stablehlo.select %230, %219, %232 : tensor<2x4x64xi1>, tensor<2x4x64xf32> loc("count")
    return %227, %233 : tensor<4x64xf32>, tensor<2x4x64xf32>
  }
  func.func private @tessera.linear.0(%arg0: tensor<16x1536xf32>, %arg1: tensor<48x1536xf32>, %arg2: tensor<48xf32>) -> tensor<16x48xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<16x1536xf32>, tensor<48x1536xf32>) -> tensor<16x48xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<48xf32>) -> tensor<16x48xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x48xf32>
    return %2 : tensor<16x48xf32>
  }
  func.func private @tessera.embedding.0(%arg0: tensor<64x48xf32>, %arg1: tensor<4x16xi32>) -> tensor<4x16x48xf32> {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 48>}> : (tensor<64x48xf32>, tensor<4x16xi32>) -> tensor<4x16x48xf32>
    return %0 : tensor<4x16x48xf32>
  }
  func.func private @tessera.layer_norm.0(%arg0: tensor<16x48xf32>, %arg1: tensor<48xf32>, %arg2: tensor<48xf32>) -> tensor<16x48xf32> {
    %0 = stablehlo.constant dense<0x42400000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<16x48xf32>
    %2 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %3 = "stablehlo.reduce"(%arg0, %2) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %4 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %4 : tensor<f32>
    }) : (tensor<16x48xf32>, tensor<f32>) -> tensor<16xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<16xf32>) -> tensor<16x48xf32>
    %6 = stablehlo.divide %5, %1 : tensor<16x48xf32>
    %7 = stablehlo.subtract %arg0, %6 : tensor<16x48xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<16x48xf32>
    %9 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %10 = "stablehlo.reduce"(%8, %9) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %11 = stablehlo.add %arg5, %arg6 : tensor<f32>
      stablehlo.return %11 : tensor<f32>
    }) : (tensor<16x48xf32>, tensor<f32>) -> tensor<16xf32>
    %12 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<16xf32>) -> tensor<16x48xf32>
    %13 = stablehlo.divide %12, %1 : tensor<16x48xf32>
    %14 = stablehlo.constant dense<0x358637BD> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<f32>) -> tensor<16x48xf32>
    %16 = stablehlo.add %13, %15 : tensor<16x48xf32>
    %17 = stablehlo.rsqrt %16 : tensor<16x48xf32>
    %18 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<48xf32>) -> tensor<16x48xf32>
    %19 = stablehlo.multiply %7, %17 : tensor<16x48xf32>
    %20 = stablehlo.multiply %19, %18 : tensor<16x48xf32>
    %21 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<48xf32>) -> tensor<16x48xf32>
    %22 = stablehlo.add %20, %21 : tensor<16x48xf32>
    return %22 : tensor<16x48xf32>
  }
  func.func private @tessera.linear.1(%arg0: tensor<16x48xf32>, %arg1: tensor<144x48xf32>, %arg2: tensor<144xf32>) -> tensor<16x144xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<16x48xf32>, tensor<144x48xf32>) -> tensor<16x144xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<144xf32>) -> tensor<16x144xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x144xf32>
    return %2 : tensor<16x144xf32>
  }
  func.func private @tessera.rope.0(%arg0: tensor<16x3x16xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<16x8xf32>) -> tensor<16x3x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 2] : (tensor<16x8xf32>) -> tensor<16x3x8xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0, 2] : (tensor<16x8xf32>) -> tensor<16x3x8xf32>
    %2 = stablehlo.slice %arg0 [0:16, 0:3, 0:8] : (tensor<16x3x16xf32>) -> tensor<16x3x8xf32>
    %3 = stablehlo.slice %arg0 [0:16, 0:3, 8:16] : (tensor<16x3x16xf32>) -> tensor<16x3x8xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<16x3x8xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<16x3x8xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<16x3x8xf32>
    %7 = stablehlo.multiply %2, %1 : tensor<16x3x8xf32>
    %8 = stablehlo.multiply %3, %0 : tensor<16x3x8xf32>
    %9 = stablehlo.add %8, %7 : tensor<16x3x8xf32>
    %10 = stablehlo.concatenate %6, %9, dim = 2 : (tensor<16x3x8xf32>, tensor<16x3x8xf32>) -> tensor<16x3x16xf32>
    return %10 : tensor<16x3x16xf32>
  }
  func.func private @tessera.attention.0(%arg0: tensor<16x3x16xf32>, %arg1: tensor<16x3x16xf32>, %arg2: tensor<16x3x16xf32>, %arg3: tensor<16x16xf32>) -> tensor<16x3x16xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<16x3x16xf32>) -> tensor<16x3x1x16xf32>
    %1 = stablehlo.dot_general %0, %arg1, batching_dims = [1] x [1], contracting_dims = [3] x [2] : (tensor<16x3x1x16xf32>, tensor<16x3x16xf32>) -> tensor<3x16x1x16xf32>
    %2 = stablehlo.constant dense<0x3E800000> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<3x16x1x16xf32>
    %4 = stablehlo.multiply %1, %3 : tensor<3x16x1x16xf32>
    %5 = stablehlo.broadcast_in_dim %arg3, dims = [1, 3] : (tensor<16x16xf32>) -> tensor<3x16x1x16xf32>
    %6 = stablehlo.add %4, %5 : tensor<3x16x1x16xf32>
    %7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %8 = "stablehlo.reduce"(%6, %7) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %9 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %9 : tensor<f32>
    }) : (tensor<3x16x1x16xf32>, tensor<f32>) -> tensor<3x16x1xf32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<3x16x1xf32>) -> tensor<3x16x1x16xf32>
    %11 = stablehlo.subtract %6, %10 : tensor<3x16x1x16xf32>
    %12 = stablehlo.exponential %11 : tensor<3x16x1x16xf32>
    %13 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %14 = "stablehlo.reduce"(%12, %13) <{dimensions = array<i64: 3>}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      %15 = stablehlo.add %arg6, %arg7 : tensor<f32>
      stablehlo.return %15 : tensor<f32>
    }) : (tensor<3x16x1x16xf32>, tensor<f32>) -> tensor<3x16x1xf32>
    %16 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2] : (tensor<3x16x1xf32>) -> tensor<3x16x1x16xf32>
    %17 = stablehlo.divide %12, %16 : tensor<3x16x1x16xf32>
    %18 = stablehlo.dot_general %17, %arg2, batching_dims = [0] x [1], contracting_dims = [3] x [0] : (tensor<3x16x1x16xf32>, tensor<16x3x16xf32>) -> tensor<3x16x1x16xf32>
    %19 = stablehlo.transpose %18, dims = [1, 0, 2, 3] : (tensor<3x16x1x16xf32>) -> tensor<16x3x1x16xf32>
    %20 = stablehlo.reshape %19 : (tensor<16x3x1x16xf32>) -> tensor<16x3x16xf32>
    return %20 : tensor<16x3x16xf32>
  }
  func.func private @tessera.linear.2(%arg0: tensor<16x48xf32>, %arg1: tensor<48x48xf32>, %arg2: tensor<48xf32>) -> tensor<16x48xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<16x48xf32>, tensor<48x48xf32>) -> tensor<16x48xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<48xf32>) -> tensor<16x48xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x48xf32>
    return %2 : tensor<16x48xf32>
  }
  func.func private @tessera.linear.3(%arg0: tensor<16x48xf32>, %arg1: tensor<96x48xf32>, %arg2: tensor<96xf32>) -> tensor<16x96xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<16x48xf32>, tensor<96x48xf32>) -> tensor<16x96xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<96xf32>) -> tensor<16x96xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x96xf32>
    return %2 : tensor<16x96xf32>
  }
  func.func private @tessera.linear.4(%arg0: tensor<16x96xf32>, %arg1: tensor<48x96xf32>, %arg2: tensor<48xf32>) -> tensor<16x48xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<16x96xf32>, tensor<48x96xf32>) -> tensor<16x48xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<48xf32>) -> tensor<16x48xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x48xf32>
    return %2 : tensor<16x48xf32>
  }
  func.func private @tessera.layer_norm.1(%arg0: tensor<4x192xf32>, %arg1: tensor<192xf32>, %arg2: tensor<192xf32>) -> tensor<4x192xf32> {
    %0 = stablehlo.constant dense<0x43400000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %2 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %3 = "stablehlo.reduce"(%arg0, %2) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %4 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %4 : tensor<f32>
    }) : (tensor<4x192xf32>, tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<4xf32>) -> tensor<4x192xf32>
    %6 = stablehlo.divide %5, %1 : tensor<4x192xf32>
    %7 = stablehlo.subtract %arg0, %6 : tensor<4x192xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<4x192xf32>
    %9 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %10 = "stablehlo.reduce"(%8, %9) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %11 = stablehlo.add %arg5, %arg6 : tensor<f32>
      stablehlo.return %11 : tensor<f32>
    }) : (tensor<4x192xf32>, tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<4xf32>) -> tensor<4x192xf32>
    %13 = stablehlo.divide %12, %1 : tensor<4x192xf32>
    %14 = stablehlo.constant dense<0x358637BD> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %16 = stablehlo.add %13, %15 : tensor<4x192xf32>
    %17 = stablehlo.rsqrt %16 : tensor<4x192xf32>
    %18 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<192xf32>) -> tensor<4x192xf32>
    %19 = stablehlo.multiply %7, %17 : tensor<4x192xf32>
    %20 = stablehlo.multiply %19, %18 : tensor<4x192xf32>
    %21 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<192xf32>) -> tensor<4x192xf32>
    %22 = stablehlo.add %20, %21 : tensor<4x192xf32>
    return %22 : tensor<4x192xf32>
  }
  func.func private @tessera.linear.5(%arg0: tensor<4x192xf32>, %arg1: tensor<192x192xf32>, %arg2: tensor<192xf32>) -> tensor<4x192xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<4x192xf32>, tensor<192x192xf32>) -> tensor<4x192xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<192xf32>) -> tensor<4x192xf32>
    %2 = stablehlo.add %0, %1 : tensor<4x192xf32>
    return %2 : tensor<4x192xf32>
  }
  func.func private @tessera.erf.0(%arg0: tensor<4x192xf32>) -> tensor<4x192xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4x192xf32>
    %1 = stablehlo.constant dense<0xBA6016DA> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %3 = stablehlo.constant dense<0x3BAB2DE7> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %5 = stablehlo.multiply %2, %0 : tensor<4x192xf32>
    %6 = stablehlo.add %5, %4 : tensor<4x192xf32>
    %7 = stablehlo.constant dense<0xBCDC1672> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %9 = stablehlo.multiply %6, %0 : tensor<4x192xf32>
    %10 = stablehlo.add %9, %8 : tensor<4x192xf32>
    %11 = stablehlo.constant dense<0x3DE71791> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %13 = stablehlo.multiply %10, %0 : tensor<4x192xf32>
    %14 = stablehlo.add %13, %12 : tensor<4x192xf32>
    %15 = stablehlo.constant dense<0xBEC093A3> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %17 = stablehlo.multiply %14, %0 : tensor<4x192xf32>
    %18 = stablehlo.add %17, %16 : tensor<4x192xf32>
    %19 = stablehlo.constant dense<0x3F906EBB> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %21 = stablehlo.multiply %18, %0 : tensor<4x192xf32>
    %22 = stablehlo.add %21, %20 : tensor<4x192xf32>
    %23 = stablehlo.multiply %arg0, %22 : tensor<4x192xf32>
    %24 = stablehlo.abs %arg0 : tensor<4x192xf32>
    %25 = stablehlo.constant dense<0x3F800000> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %27 = stablehlo.constant dense<0x3EA7BA05> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %29 = stablehlo.multiply %28, %24 : tensor<4x192xf32>
    %30 = stablehlo.add %26, %29 : tensor<4x192xf32>
    %31 = stablehlo.divide %26, %30 : tensor<4x192xf32>
    %32 = stablehlo.constant dense<0x3F87DC22> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %34 = stablehlo.constant dense<0xBFBA00E3> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %34, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %36 = stablehlo.multiply %33, %31 : tensor<4x192xf32>
    %37 = stablehlo.add %36, %35 : tensor<4x192xf32>
    %38 = stablehlo.constant dense<0x3FB5F0E3> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %40 = stablehlo.multiply %37, %31 : tensor<4x192xf32>
    %41 = stablehlo.add %40, %39 : tensor<4x192xf32>
    %42 = stablehlo.constant dense<0xBE91A98E> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %42, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %44 = stablehlo.multiply %41, %31 : tensor<4x192xf32>
    %45 = stablehlo.add %44, %43 : tensor<4x192xf32>
    %46 = stablehlo.constant dense<0x3E827906> : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %48 = stablehlo.multiply %45, %31 : tensor<4x192xf32>
    %49 = stablehlo.add %48, %47 : tensor<4x192xf32>
    %50 = stablehlo.multiply %49, %31 : tensor<4x192xf32>
    %51 = stablehlo.negate %0 : tensor<4x192xf32>
    %52 = stablehlo.exponential %51 : tensor<4x192xf32>
    %53 = stablehlo.multiply %50, %52 : tensor<4x192xf32>
    %54 = stablehlo.subtract %26, %53 : tensor<4x192xf32>
    %55 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %55, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %57 = stablehlo.negate %54 : tensor<4x192xf32>
    %58 = stablehlo.compare  LT, %arg0, %56,  FLOAT : (tensor<4x192xf32>, tensor<4x192xf32>) -> tensor<4x192xi1>
    %59 = stablehlo.select %58, %57, %54 : tensor<4x192xi1>, tensor<4x192xf32>
    %60 = stablehlo.constant dense<0x3F000000> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %60, dims = [] : (tensor<f32>) -> tensor<4x192xf32>
    %62 = stablehlo.compare  LT, %24, %61,  FLOAT : (tensor<4x192xf32>, tensor<4x192xf32>) -> tensor<4x192xi1>
    %63 = stablehlo.select %62, %23, %59 : tensor<4x192xi1>, tensor<4x192xf32>
    return %63 : tensor<4x192xf32>
  }
  func.func private @tessera.linear.6(%arg0: tensor<4x192xf32>, %arg1: tensor<64x192xf32>, %arg2: tensor<64xf32>) -> tensor<4x64xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<4x192xf32>, tensor<64x192xf32>) -> tensor<4x64xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<64xf32>) -> tensor<4x64xf32>
    %2 = stablehlo.add %0, %1 : tensor<4x64xf32>
    return %2 : tensor<4x64xf32>
  }
}
