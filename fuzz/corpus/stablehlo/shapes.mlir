module @shapes {
  func.func public @main(%arg0: tensor<2x3x4xf32> {tessera.name = "x", tessera.role = "input"}, %arg1: tensor<3xf32> {tessera.name = "v3", tessera.role = "input"}, %arg2: tensor<5x4xf32> {tessera.name = "table", tessera.role = "weight"}, %arg3: tensor<3xi32> {tessera.name = "ids", tessera.role = "input"}, %arg4: tensor<3x1xi32> {tessera.name = "ids2", tessera.role = "input"}, %arg5: tensor<3x4xf32> {tessera.name = "upd", tessera.role = "input"}, %arg6: tensor<i32> {tessera.name = "start", tessera.role = "input"}, %arg7: tensor<2x4x5xf32> {tessera.name = "y", tessera.role = "input"}, %arg8: tensor<3x4xi32> {tessera.name = "iy", tessera.role = "input"}, %arg9: tensor<3x4xbf16> {tessera.name = "by", tessera.role = "input"}) -> (tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<2x2x2xf32>, tensor<2x2x4xf32>, tensor<1x2x4xf32>, tensor<2x3x4xf32>, tensor<2x9x4xf32>, tensor<4x4x11xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<5x4xf32>, tensor<2x4xf32>, tensor<3xf32>, tensor<2x4xf32>, tensor<3xi32>, tensor<3xi32>, tensor<3xbf16>, tensor<2x3xi32>, tensor<4xi32>, tensor<3xi32>, tensor<2x3x5xf32>, tensor<6x5xf32>, tensor<3x3xf32>) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3x4xf32>
    %1 = stablehlo.constant dense<0x3F000000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<6x4xf32>
    %3 = stablehlo.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
    %4 = stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    %5 = stablehlo.slice %arg0 [0:2, 1:3, 0:4:2] : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
    %6 = stablehlo.slice %arg0 [0:2, 1:3, 0:4] : (tensor<2x3x4xf32>) -> tensor<2x2x4xf32>
    %7 = stablehlo.constant dense<0> : tensor<i32>
    %8 = stablehlo.dynamic_slice %arg0, %7, %arg6, %7, sizes = [1, 2, 4] : (tensor<2x3x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x4xf32>
    %9 = stablehlo.negate %8 : tensor<1x2x4xf32>
    %10 = stablehlo.dynamic_update_slice %arg0, %9, %7, %arg6, %7 : (tensor<2x3x4xf32>, tensor<1x2x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x4xf32>
    %11 = stablehlo.exponential %arg0 : tensor<2x3x4xf32>
    %12 = stablehlo.concatenate %arg0, %arg0, %11, dim = 1 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x9x4xf32>
    %13 = stablehlo.constant dense<0xC0E00000> : tensor<f32>
    %14 = stablehlo.pad %arg0, %13, low = [1, -1, 0], high = [0, 2, 1], interior = [1, 0, 2] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<4x4x11xf32>
    %15 = "stablehlo.gather"(%arg2, %arg3) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<5x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
    %16 = "stablehlo.gather"(%arg2, %arg4) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<5x4xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
    %17 = "stablehlo.scatter"(%arg2, %arg4, %arg5) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg10: tensor<f32>, %arg11: tensor<f32>):
      %18 = stablehlo.add %arg10, %arg11 : tensor<f32>
      stablehlo.return %18 : tensor<f32>
    }) : (tensor<5x4xf32>, tensor<3x1xi32>, tensor<3x4xf32>) -> tensor<5x4xf32>
    %19 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %20 = "stablehlo.reduce"(%arg0, %19) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
      %21 = stablehlo.add %arg12, %arg13 : tensor<f32>
      stablehlo.return %21 : tensor<f32>
    }) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x4xf32>
    %22 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %23 = "stablehlo.reduce"(%arg0, %22) <{dimensions = array<i64: 0, 2>}> ({
    ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
      %24 = stablehlo.add %arg14, %arg15 : tensor<f32>
      stablehlo.return %24 : tensor<f32>
    }) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<3xf32>
    %25 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %26 = "stablehlo.reduce"(%arg0, %25) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg16: tensor<f32>, %arg17: tensor<f32>):
      %27 = stablehlo.maximum %arg16, %arg17 : tensor<f32>
      stablehlo.return %27 : tensor<f32>
    }) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x4xf32>
    %28 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %29 = "stablehlo.reduce"(%arg8, %28) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg18: tensor<i32>, %arg19: tensor<i32>):
      %30 = stablehlo.maximum %arg18, %arg19 : tensor<i32>
      stablehlo.return %30 : tensor<i32>
    }) : (tensor<3x4xi32>, tensor<i32>) -> tensor<3xi32>
    %31 = stablehlo.constant dense<0> : tensor<i32>
    %32 = "stablehlo.reduce"(%arg8, %31) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg20: tensor<i32>, %arg21: tensor<i32>):
      %33 = stablehlo.add %arg20, %arg21 : tensor<i32>
      stablehlo.return %33 : tensor<i32>
    }) : (tensor<3x4xi32>, tensor<i32>) -> tensor<3xi32>
    %34 = stablehlo.constant dense<0x0000> : tensor<bf16>
    %35 = "stablehlo.reduce"(%arg9, %34) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg22: tensor<bf16>, %arg23: tensor<bf16>):
      %36 = stablehlo.add %arg22, %arg23 : tensor<bf16>
      stablehlo.return %36 : tensor<bf16>
    }) : (tensor<3x4xbf16>, tensor<bf16>) -> tensor<3xbf16>
    %37 = stablehlo.iota dim = 2 : tensor<2x3x4xi32>
    %38 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %39 = stablehlo.constant dense<0> : tensor<i32>
    %40:2 = "stablehlo.reduce"(%arg0, %37, %38, %39) <{dimensions = array<i64: 2>}> ({
    ^bb0(%arg24: tensor<f32>, %arg25: tensor<i32>, %arg26: tensor<f32>, %arg27: tensor<i32>):
      %41 = stablehlo.compare  GT, %arg24, %arg26,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %42 = stablehlo.compare  NE, %arg24, %arg24,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %43 = stablehlo.compare  NE, %arg26, %arg26,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %44 = stablehlo.compare  GT, %42, %43,  UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %45 = stablehlo.or %41, %44 : tensor<i1>
      %46 = stablehlo.compare  EQ, %arg24, %arg26,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %47 = stablehlo.and %42, %43 : tensor<i1>
      %48 = stablehlo.or %46, %47 : tensor<i1>
      %49 = stablehlo.compare  LT, %arg25, %arg27,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %50 = stablehlo.and %48, %49 : tensor<i1>
      %51 = stablehlo.or %45, %50 : tensor<i1>
      %52 = stablehlo.select %51, %arg24, %arg26 : tensor<i1>, tensor<f32>
      %53 = stablehlo.select %51, %arg25, %arg27 : tensor<i1>, tensor<i32>
      stablehlo.return %52, %53 : tensor<f32>, tensor<i32>
    }) : (tensor<2x3x4xf32>, tensor<2x3x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) loc("head")
    %54 = stablehlo.iota dim = 0 : tensor<3x4xi32>
    %55 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %56 = stablehlo.constant dense<0> : tensor<i32>
    %57:2 = "stablehlo.reduce"(%arg8, %54, %55, %56) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg28: tensor<i32>, %arg29: tensor<i32>, %arg30: tensor<i32>, %arg31: tensor<i32>):
      %58 = stablehlo.compare  GT, %arg28, %arg30,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %59 = stablehlo.compare  NE, %arg28, %arg28,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %60 = stablehlo.compare  NE, %arg30, %arg30,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %61 = stablehlo.compare  GT, %59, %60,  UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %62 = stablehlo.or %58, %61 : tensor<i1>
      %63 = stablehlo.compare  EQ, %arg28, %arg30,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %64 = stablehlo.and %59, %60 : tensor<i1>
      %65 = stablehlo.or %63, %64 : tensor<i1>
      %66 = stablehlo.compare  LT, %arg29, %arg31,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %67 = stablehlo.and %65, %66 : tensor<i1>
      %68 = stablehlo.or %62, %67 : tensor<i1>
      %69 = stablehlo.select %68, %arg28, %arg30 : tensor<i1>, tensor<i32>
      %70 = stablehlo.select %68, %arg29, %arg31 : tensor<i1>, tensor<i32>
      stablehlo.return %69, %70 : tensor<i32>, tensor<i32>
    }) : (tensor<3x4xi32>, tensor<3x4xi32>, tensor<i32>, tensor<i32>) -> (tensor<4xi32>, tensor<4xi32>) loc("head")
    %71 = stablehlo.iota dim = 1 : tensor<3x4xi32>
    %72 = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %73 = stablehlo.constant dense<0> : tensor<i32>
    %74:2 = "stablehlo.reduce"(%arg9, %71, %72, %73) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg32: tensor<bf16>, %arg33: tensor<i32>, %arg34: tensor<bf16>, %arg35: tensor<i32>):
      %75 = stablehlo.compare  GT, %arg32, %arg34,  FLOAT : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      %76 = stablehlo.compare  NE, %arg32, %arg32,  FLOAT : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      %77 = stablehlo.compare  NE, %arg34, %arg34,  FLOAT : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      %78 = stablehlo.compare  GT, %76, %77,  UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %79 = stablehlo.or %75, %78 : tensor<i1>
      %80 = stablehlo.compare  EQ, %arg32, %arg34,  FLOAT : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
      %81 = stablehlo.and %76, %77 : tensor<i1>
      %82 = stablehlo.or %80, %81 : tensor<i1>
      %83 = stablehlo.compare  LT, %arg33, %arg35,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %84 = stablehlo.and %82, %83 : tensor<i1>
      %85 = stablehlo.or %79, %84 : tensor<i1>
      %86 = stablehlo.select %85, %arg32, %arg34 : tensor<i1>, tensor<bf16>
      %87 = stablehlo.select %85, %arg33, %arg35 : tensor<i1>, tensor<i32>
      stablehlo.return %86, %87 : tensor<bf16>, tensor<i32>
    }) : (tensor<3x4xbf16>, tensor<3x4xi32>, tensor<bf16>, tensor<i32>) -> (tensor<3xbf16>, tensor<3xi32>) loc("head")
    %88 = stablehlo.dot_general %arg0, %arg7, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32> loc("head")
    %89 = stablehlo.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<6x4xf32> loc("head")
    %90 = stablehlo.dot_general %89, %arg2, contracting_dims = [1] x [1] : (tensor<6x4xf32>, tensor<5x4xf32>) -> tensor<6x5xf32> loc("head")
    %91 = stablehlo.dot_general %arg1, %arg1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3x3xf32> loc("head")
    return %0, %2, %3, %4, %5, %6, %8, %10, %12, %14, %15, %16, %17, %20, %23, %26, %29, %32, %35, %40#1, %57#1, %74#1, %88, %90, %91 : tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<2x2x2xf32>, tensor<2x2x4xf32>, tensor<1x2x4xf32>, tensor<2x3x4xf32>, tensor<2x9x4xf32>, tensor<4x4x11xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<5x4xf32>, tensor<2x4xf32>, tensor<3xf32>, tensor<2x4xf32>, tensor<3xi32>, tensor<3xi32>, tensor<3xbf16>, tensor<2x3xi32>, tensor<4xi32>, tensor<3xi32>, tensor<2x3x5xf32>, tensor<6x5xf32>, tensor<3x3xf32>
  }
}
