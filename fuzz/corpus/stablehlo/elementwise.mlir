module @elementwise {
  func.func public @main(%arg0: tensor<2x3xf32> {tessera.name = "a", tessera.role = "input"}, %arg1: tensor<2x3xf32> {tessera.name = "b", tessera.role = "weight"}, %arg2: tensor<2x3xi32> {tessera.name = "ia", tessera.role = "input"}, %arg3: tensor<2x3xi32> {tessera.name = "ib", tessera.role = "state"}, %arg4: tensor<4xbf16> {tessera.name = "h\"a\\\0A", tessera.role = "input"}, %arg5: tensor<4xf16> {tessera.name = "model.layers.0.f16", tessera.role = "weight"}, %arg6: tensor<2x3xi1> {tessera.name = "p", tessera.role = "input"}) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<4xbf16>, tensor<4xf16>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<4xbf16>, tensor<4xf16>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf16>, tensor<2x3xbf16>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<4xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<4xbf16>, tensor<f16>, tensor<i64>, tensor<3xui8>, tensor<3xi8>, tensor<3xi16>, tensor<0xf32>, tensor<i1>, tensor<2x3xi32>, tensor<5xf32>) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<2x3xf32> loc("binary")
    %1 = stablehlo.subtract %arg0, %arg1 : tensor<2x3xf32> loc("binary")
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<2x3xf32> loc("binary")
    %3 = stablehlo.divide %arg0, %arg1 : tensor<2x3xf32> loc("binary")
    %4 = stablehlo.maximum %arg0, %arg1 : tensor<2x3xf32> loc("binary")
    %5 = stablehlo.minimum %arg0, %arg1 : tensor<2x3xf32> loc("binary")
    %6 = stablehlo.power %arg0, %arg1 : tensor<2x3xf32> loc("binary")
    %7 = stablehlo.add %arg2, %arg3 : tensor<2x3xi32> loc("binary")
    %8 = stablehlo.subtract %arg2, %arg3 : tensor<2x3xi32> loc("binary")
    %9 = stablehlo.multiply %arg2, %arg3 : tensor<2x3xi32> loc("binary")
    %10 = stablehlo.divide %arg2, %arg3 : tensor<2x3xi32> loc("binary")
    %11 = stablehlo.maximum %arg2, %arg3 : tensor<2x3xi32> loc("binary")
    %12 = stablehlo.minimum %arg2, %arg3 : tensor<2x3xi32> loc("binary")
    %13 = stablehlo.multiply %arg4, %arg4 : tensor<4xbf16> loc("binary")
    %14 = stablehlo.add %arg5, %arg5 : tensor<4xf16> loc("binary")
    %15 = stablehlo.negate %arg0 : tensor<2x3xf32> loc("unary")
    %16 = stablehlo.abs %arg0 : tensor<2x3xf32> loc("unary")
    %17 = stablehlo.exponential %arg0 : tensor<2x3xf32> loc("unary")
    %18 = stablehlo.log %arg0 : tensor<2x3xf32> loc("unary")
    %19 = stablehlo.sqrt %arg0 : tensor<2x3xf32> loc("unary")
    %20 = stablehlo.rsqrt %arg0 : tensor<2x3xf32> loc("unary")
    %21 = stablehlo.tanh %arg0 : tensor<2x3xf32> loc("unary")
    %22 = stablehlo.logistic %arg0 : tensor<2x3xf32> loc("unary")
    %23 = stablehlo.sine %arg0 : tensor<2x3xf32> loc("unary")
    %24 = stablehlo.cosine %arg0 : tensor<2x3xf32> loc("unary")
    %25 = chlo.erf %arg0 : tensor<2x3xf32> -> tensor<2x3xf32> loc("unary")
    %26 = stablehlo.negate %arg2 : tensor<2x3xi32> loc("unary")
    %27 = stablehlo.abs %arg2 : tensor<2x3xi32> loc("unary")
    %28 = stablehlo.exponential %arg4 : tensor<4xbf16> loc("unary")
    %29 = stablehlo.tanh %arg5 : tensor<4xf16> loc("unary")
    %30 = stablehlo.compare  EQ, %arg0, %arg1,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %31 = stablehlo.compare  EQ, %arg2, %arg3,  SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
    %32 = stablehlo.compare  NE, %arg0, %arg1,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %33 = stablehlo.compare  NE, %arg2, %arg3,  SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
    %34 = stablehlo.compare  LT, %arg0, %arg1,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %35 = stablehlo.compare  LT, %arg2, %arg3,  SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
    %36 = stablehlo.compare  LE, %arg0, %arg1,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %37 = stablehlo.compare  LE, %arg2, %arg3,  SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
    %38 = stablehlo.compare  GT, %arg0, %arg1,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %39 = stablehlo.compare  GT, %arg2, %arg3,  SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
    %40 = stablehlo.compare  GE, %arg0, %arg1,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %41 = stablehlo.compare  GE, %arg2, %arg3,  SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
    %42 = stablehlo.compare  LT, %arg0, %arg1,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %43 = stablehlo.compare  NE, %arg6, %42,  UNSIGNED : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
    %44 = stablehlo.select %arg6, %arg0, %arg1 : tensor<2x3xi1>, tensor<2x3xf32>
    %45 = stablehlo.constant dense<0x3F800000> : tensor<f32>
    %46 = stablehlo.constant dense<0x40000000> : tensor<f32>
    %47 = stablehlo.compare  GT, %46, %45,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %48 = stablehlo.select %47, %arg2, %arg3 : tensor<i1>, tensor<2x3xi32>
    %49 = stablehlo.convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf16>
    %50 = stablehlo.convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xbf16>
    %51 = stablehlo.convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xi32>
    %52 = stablehlo.convert %arg2 : (tensor<2x3xi32>) -> tensor<2x3xf32>
    %53 = stablehlo.convert %arg6 : (tensor<2x3xi1>) -> tensor<2x3xi32>
    %54 = stablehlo.convert %arg4 : (tensor<4xbf16>) -> tensor<4xf32>
    %55 = stablehlo.constant dense<"0x0000803F000020C000000000000000800000807FD00F4940"> : tensor<2x3xf32> loc("constants")
    %56 = stablehlo.add %arg0, %55 : tensor<2x3xf32> loc("constants")
    %57 = stablehlo.constant dense<[[1, -2, 2147483647], [-2147483648, 0, 42]]> : tensor<2x3xi32> loc("constants")
    %58 = stablehlo.add %arg2, %57 : tensor<2x3xi32> loc("constants")
    %59 = stablehlo.constant dense<[[true, false, true], [true, false, false]]> : tensor<2x3xi1> loc("constants")
    %60 = stablehlo.constant dense<"0x803F80BFC07F0100"> : tensor<4xbf16> loc("constants")
    %61 = stablehlo.constant dense<0x3F80> : tensor<f16> loc("constants")
    %62 = stablehlo.constant dense<-9223372036854775808> : tensor<i64> loc("constants")
    %63 = stablehlo.constant dense<[0, 200, 255]> : tensor<3xui8> loc("constants")
    %64 = stablehlo.constant dense<[-128, 0, 127]> : tensor<3xi8> loc("constants")
    %65 = stablehlo.constant dense<[-32768, 1, 32767]> : tensor<3xi16> loc("constants")
    %66 = stablehlo.constant dense<> : tensor<0xf32> loc("constants")
    %67 = stablehlo.constant dense<true> : tensor<i1> loc("constants")
    %68 = stablehlo.iota dim = 1 : tensor<2x3xi32> loc("constants")
    %69 = stablehlo.iota dim = 0 : tensor<5xf32> loc("constants")
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %43, %44, %48, %49, %50, %51, %52, %53, %54, %56, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<4xbf16>, tensor<4xf16>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<4xbf16>, tensor<4xf16>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf16>, tensor<2x3xbf16>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<4xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<4xbf16>, tensor<f16>, tensor<i64>, tensor<3xui8>, tensor<3xi8>, tensor<3xi16>, tensor<0xf32>, tensor<i1>, tensor<2x3xi32>, tensor<5xf32>
  }
}
