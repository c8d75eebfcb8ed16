// Triton AOT support on the CPU: the metadata recorded from real compiled kernels (the artefacts
// in tests/triton/aot), argument packing against it, grids and scratch memory.
#include <autoplugin/error.h>
#include <autoplugin/triton.h>
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "error_text.h"
#include "triton_kernels/test_autotuned_add.h"
#include "triton_kernels/test_row_scale.h"
#include "triton_kernels/test_scalars.h"
#include "triton_kernels/test_scale_add.h"
#include "triton_kernels/test_scale_add_specialized.h"
#include "triton_kernels/test_scale_add_values.h"
#include "triton_kernels/test_tile_copy.h"

namespace {

namespace tr = autoplugin::triton;
using autoplugin_test::test_autotuned_add;
using autoplugin_test::test_row_scale;
using autoplugin_test::test_scalars;
using autoplugin_test::test_scale_add;
using autoplugin_test::test_scale_add_specialized;
using autoplugin_test::test_scale_add_values;
using autoplugin_test::test_tile_copy;
using ::testing::HasSubstr;

// Device addresses are only packed, never dereferenced, on the CPU.
const void* address(std::uintptr_t value) { return reinterpret_cast<const void*>(value); }
const float* float_address(std::uintptr_t value) {
  return static_cast<const float*>(address(value));
}

template <typename T>
T read_as(const tr::PackedArguments& packed, std::size_t index) {
  T value{};
  const auto bytes = packed.bytes(index);
  EXPECT_EQ(bytes.size(), sizeof(T)) << "parameter " << index;
  std::memcpy(&value, bytes.data(), std::min(bytes.size(), sizeof(T)));
  return value;
}

TEST(TritonImage, RecordsTheCompiledSignature) {
  const tr::KernelImage& image = test_scale_add::image();
  EXPECT_STREQ(image.name, "test_scale_add");
  EXPECT_STREQ(image.function, "scale_add_kernel");
  EXPECT_STREQ(image.signature, "*fp32:16, *fp32:16, *fp32:16, i32, fp32, 1024");
  EXPECT_EQ(image.arch, 90);
  EXPECT_EQ(image.num_warps, 4);
  ASSERT_EQ(image.parameters.size(), 5u);
  const char* names[] = {"x", "y", "out", "n", "alpha"};
  const tr::ParamType types[] = {tr::ParamType::Pointer, tr::ParamType::Pointer,
                                 tr::ParamType::Pointer, tr::ParamType::I32, tr::ParamType::FP32};
  const std::uint32_t divisibility[] = {16, 16, 16, 1, 1};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_STREQ(image.parameters[i].name, names[i]);
    EXPECT_EQ(image.parameters[i].type, types[i]);
    EXPECT_EQ(image.parameters[i].divisibility, divisibility[i]);
  }
  ASSERT_EQ(image.constants.size(), 1u);
  EXPECT_STREQ(image.constants[0].name, "BLOCK");
  EXPECT_EQ(test_scale_add::BLOCK, 1024);
  // Triton 3.x: two trailing scratch pointers, unused by this kernel.
  EXPECT_EQ(image.scratch_parameters, 2);
  EXPECT_EQ(image.global_scratch_bytes, 0u);
  // An ELF cubin and NUL-terminated PTX.
  ASSERT_GT(image.cubin.size(), 4u);
  EXPECT_EQ(std::memcmp(image.cubin.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  EXPECT_EQ(image.ptx.back(), '\0');
  EXPECT_THAT(std::string(image.ptx.data()), HasSubstr(".entry scale_add_kernel"));
}

TEST(TritonImage, KernelWithDescriptorsNeedsGlobalScratch) {
  const tr::KernelImage& image = test_tile_copy::image();
  EXPECT_EQ(image.scratch_parameters, 2);
  EXPECT_GT(image.global_scratch_bytes, 0u);
  EXPECT_GE(image.global_scratch_align, 64u);
  EXPECT_EQ(test_tile_copy::BLOCK_M, 64);
}

TEST(TritonPacking, Fp32ScalarIsFourBytesOfFloat) {
  tr::PackedArguments packed(
      test_scale_add::image(),
      {address(0x1000), address(0x2000), address(0x3000), std::int32_t{100}, 0.5f},
      tr::make_grid(1), {});
  ASSERT_EQ(packed.count(), 7u);  // five arguments, two scratch pointers
  EXPECT_EQ(read_as<std::uint64_t>(packed, 0), 0x1000u);
  EXPECT_EQ(read_as<std::uint64_t>(packed, 2), 0x3000u);
  EXPECT_EQ(read_as<std::int32_t>(packed, 3), 100);
  // The kernel reads 4 bytes: they must be the float's (Triton's own AOT C passes a double).
  EXPECT_EQ(read_as<std::uint32_t>(packed, 4), 0x3f000000u);
  EXPECT_EQ(read_as<std::uint64_t>(packed, 5), 0u);  // global scratch: none needed
  EXPECT_EQ(read_as<std::uint64_t>(packed, 6), 0u);  // profile scratch
  void** params = packed.kernel_params();
  EXPECT_EQ(*static_cast<float*>(params[4]), 0.5f);
}

TEST(TritonPacking, DoubleForFp32IsRejected) {
  const std::string message = error_of([] {
    tr::PackedArguments packed(
        test_scale_add::image(),
        {address(0x1000), address(0x2000), address(0x3000), std::int32_t{100}, 0.5},
        tr::make_grid(1), {});
  });
  EXPECT_THAT(message, HasSubstr("Triton kernel 'test_scale_add': argument 4 ('alpha', fp32) "
                                 "was given a double; it takes a float"));
  EXPECT_THAT(message, HasSubstr("garbage"));
}

TEST(TritonPacking, WrongCountListsTheSignature) {
  const std::string message = error_of([] {
    tr::PackedArguments packed(test_scale_add::image(), {address(0x1000), std::int32_t{1}},
                               tr::make_grid(1), {});
  });
  EXPECT_THAT(message, HasSubstr("takes 5 arguments (x: *fp32:16, y: *fp32:16, out: *fp32:16, "
                                 "n: i32, alpha: fp32); the launch passed 2"));
}

TEST(TritonPacking, IntegerWidthMustMatch) {
  const std::string message = error_of([] {
    tr::PackedArguments packed(
        test_scale_add::image(),
        {address(0x1000), address(0x2000), address(0x3000), std::int64_t{100}, 0.5f},
        tr::make_grid(1), {});
  });
  EXPECT_THAT(message, HasSubstr("argument 3 ('n', i32) was given a std::int64_t; it takes a "
                                 "std::int32_t"));
}

TEST(TritonPacking, DivisibilityPromisesAreChecked) {
  const std::string pointer = error_of([] {
    tr::PackedArguments packed(
        test_scale_add::image(),
        {address(0x1000), address(0x2004), address(0x3000), std::int32_t{100}, 0.5f},
        tr::make_grid(1), {});
  });
  EXPECT_THAT(pointer, HasSubstr("argument 1 ('y', *fp32:16) is address 0x2004, not a multiple "
                                 "of 16: the kernel was compiled assuming it is"));
  const std::string integer = error_of([] {
    tr::PackedArguments packed(
        test_tile_copy::image(),
        {address(0x1000), address(0x2000), std::int32_t{64}, std::int32_t{40}}, tr::make_grid(1),
        {});
  });
  EXPECT_THAT(integer, HasSubstr("argument 3 ('cols', i32:16) is 40, not a multiple of 16"));
}

TEST(TritonSpecialization, CompiledWithMorePromisesAsTritonsJit) {
  const tr::KernelImage& image = test_scale_add_specialized::image();
  ASSERT_EQ(image.specializations.size(), 2u);
  const auto promises = [](const tr::KernelImage& specialized) {
    std::vector<std::uint32_t> divisibility;
    for (const tr::Parameter& parameter : specialized.parameters) {
      divisibility.push_back(parameter.divisibility);
    }
    return divisibility;
  };
  EXPECT_EQ(promises(image), (std::vector<std::uint32_t>{1, 1, 1, 1, 1}));
  EXPECT_EQ(promises(*image.specializations[0]), (std::vector<std::uint32_t>{16, 16, 16, 16, 1}));
  EXPECT_EQ(promises(*image.specializations[1]), (std::vector<std::uint32_t>{16, 16, 16, 1, 1}));
  EXPECT_THAT(image.specializations[1]->name, HasSubstr("multiples of 16: x, y, out"));
  EXPECT_TRUE(image.specializations[0]->specializations.empty());
}

TEST(TritonSpecialization, LaunchTakesTheMostPromisedImageTheArgumentsKeep) {
  const tr::KernelImage& image = test_scale_add_specialized::image();
  const auto chosen = [&](std::uintptr_t y, std::int32_t n) {
    return &tr::specialization_for(image, {address(0x1000), address(y), address(0x3000), n, 0.5f},
                                   tr::make_grid(1), {});
  };
  EXPECT_EQ(chosen(0x2000, 4096), image.specializations[0]);
  EXPECT_EQ(chosen(0x2000, 4100), image.specializations[1]);  // n is not a multiple of 16
  EXPECT_EQ(chosen(0x2004, 4096), &image);                    // y is not 16-byte aligned
  // An image without specializations is its own choice.
  EXPECT_EQ(&tr::specialization_for(
                test_scale_add::image(),
                {address(0x1000), address(0x2000), address(0x3000), std::int32_t{16}, 0.5f},
                tr::make_grid(1), {}),
            &test_scale_add::image());
}

TEST(TritonSpecialization, BuildsForAValueAreTakenForThatValueOnlyAndNotPassedIt) {
  const tr::KernelImage& image = test_scale_add_values::image();
  // n = 4096, alpha = 0.5 with the addresses' promise, then without; then the usual two.
  ASSERT_EQ(image.specializations.size(), 4u);
  const tr::KernelImage& valued = *image.specializations[0];
  EXPECT_THAT(valued.name, HasSubstr("multiples of 16: x, y, out; n = 4096; alpha = 0.5"));
  ASSERT_EQ(valued.parameters.size(), 5u);
  EXPECT_TRUE(valued.parameters[3].compiled_value);
  EXPECT_EQ(valued.parameters[3].value_bits, 4096u);
  EXPECT_TRUE(valued.parameters[4].compiled_value);
  EXPECT_EQ(valued.parameters[4].value_bits, std::bit_cast<std::uint32_t>(0.5f));
  EXPECT_FALSE(image.specializations[2]->parameters[3].compiled_value);
  const auto chosen = [&](std::uintptr_t y, std::int32_t n, float alpha) {
    return &tr::specialization_for(image, {address(0x1000), address(y), address(0x3000), n, alpha},
                                   tr::make_grid(1), {});
  };
  EXPECT_EQ(chosen(0x2000, 4096, 0.5f), &valued);
  EXPECT_EQ(chosen(0x2004, 4096, 0.5f), image.specializations[1]);   // the value, no alignment
  EXPECT_EQ(chosen(0x2000, 4096, 0.25f), image.specializations[2]);  // another alpha
  EXPECT_EQ(chosen(0x2000, 4112, 0.5f), image.specializations[2]);
  // The kernel has no parameter for n and alpha: they are not passed.
  tr::PackedArguments packed(
      valued, {address(0x1000), address(0x2000), address(0x3000), std::int32_t{4096}, 0.5f},
      tr::make_grid(1), {});
  EXPECT_EQ(packed.count(), 3u + static_cast<std::size_t>(valued.scratch_parameters));
  EXPECT_EQ(packed.bytes(2).size(), 8u);
  const std::string other = error_of([&] {
    tr::PackedArguments wrong(
        valued, {address(0x1000), address(0x2000), address(0x3000), std::int32_t{100}, 0.5f},
        tr::make_grid(1), {});
  });
  EXPECT_THAT(other, HasSubstr("argument 3 ('n', i32) has the bits 0x64; this build of the "
                               "kernel was compiled for the value whose bits are 0x1000"));
}

TEST(TritonPacking, EveryScalarTypeHasItsKernelSize) {
  const tr::Float16Arg half(1.5f);
  const tr::BFloat16Arg bfloat(-2.0f);
  tr::PackedArguments packed(
      test_scalars::image(),
      {address(0x1000), true, std::int8_t{-2}, std::int16_t{-300}, std::int32_t{-32},
       std::int64_t{-5'000'000'000}, std::uint8_t{200}, std::uint32_t{4'000'000'000u},
       std::uint64_t{1} << 40, half, bfloat, 0.25},
      tr::make_grid(1), {});
  ASSERT_EQ(packed.count(), 14u);
  EXPECT_EQ(read_as<std::uint8_t>(packed, 1), 1u);
  EXPECT_EQ(read_as<std::int8_t>(packed, 2), -2);
  EXPECT_EQ(read_as<std::int16_t>(packed, 3), -300);
  EXPECT_EQ(read_as<std::int32_t>(packed, 4), -32);
  EXPECT_EQ(read_as<std::int64_t>(packed, 5), -5'000'000'000);
  EXPECT_EQ(read_as<std::uint8_t>(packed, 6), 200u);
  EXPECT_EQ(read_as<std::uint32_t>(packed, 7), 4'000'000'000u);
  EXPECT_EQ(read_as<std::uint64_t>(packed, 8), std::uint64_t{1} << 40);
  EXPECT_EQ(read_as<std::uint16_t>(packed, 9), 0x3e00u);   // 1.5 in IEEE half
  EXPECT_EQ(read_as<std::uint16_t>(packed, 10), 0xc000u);  // -2.0 in bfloat16
  EXPECT_EQ(read_as<double>(packed, 11), 0.25);
}

TEST(TritonImage, PythonNamesThatAreNotCppIdentifiersAreRenamedInLaunch) {
  const tr::KernelImage& image = test_scalars::image();
  EXPECT_STREQ(image.parameters[1].name, "stream");  // the metadata keeps Python's names
  EXPECT_STREQ(image.parameters[11].name, "double");
  // launch(grid, stream, out, stream_, ..., double_) compiles: see the static_asserts below.
}

TEST(TritonPacking, SixteenBitValuesOfEveryHostAndCudaType) {
  EXPECT_EQ(tr::Argument(autoplugin::half_storage{0x3e00}).bits(), 0x3e00u);
  EXPECT_EQ(tr::Argument(autoplugin::half_storage{0x3e00}).type(), tr::ParamType::FP16);
  EXPECT_EQ(tr::Argument(tr::Float16Arg(1.5f)).bits(), 0x3e00u);
  EXPECT_EQ(tr::Argument(autoplugin::bfloat16_storage{0xc000}).type(), tr::ParamType::BF16);
  EXPECT_EQ(tr::Argument(tr::BFloat16Arg(-2.0f)).bits(), 0xc000u);
#ifdef AUTOPLUGIN_HAS_CUDA_TYPES
  EXPECT_EQ(tr::Argument(__half(1.5f)).bits(), 0x3e00u);
  EXPECT_EQ(tr::Argument(__nv_bfloat16(-2.0f)).type(), tr::ParamType::BF16);
  EXPECT_EQ(tr::Argument(__nv_bfloat16(-2.0f)).bits(), 0xc000u);
#endif
}

TEST(TritonScratch, SizedPerProgramAndChecked) {
  const tr::KernelImage& image = test_tile_copy::image();
  const tr::Grid grid = tr::make_grid(3, 2);
  const std::size_t needed = tr::scratch_bytes(image, grid);
  EXPECT_EQ(needed, std::size_t{image.global_scratch_bytes} * 6);
  EXPECT_EQ(test_tile_copy::scratch_bytes(grid), needed);
  const std::initializer_list<tr::Argument> arguments = {address(0x1000), address(0x2000),
                                                         std::int32_t{128}, std::int32_t{128}};
  tr::PackedArguments packed(image, arguments, grid, {reinterpret_cast<void*>(0x10000), needed});
  EXPECT_EQ(read_as<std::uint64_t>(packed, 4), 0x10000u);
  EXPECT_EQ(read_as<std::uint64_t>(packed, 5), 0u);  // no profile scratch
  const std::string small = error_of([&] {
    tr::PackedArguments p(image, arguments, grid, {reinterpret_cast<void*>(0x10000), needed - 1});
  });
  EXPECT_THAT(small, HasSubstr("needs " + std::to_string(needed) +
                               " bytes of scratch memory for 6 programs; the launch passed " +
                               std::to_string(needed - 1)));
  const std::string null_scratch = error_of([&] {
    tr::PackedArguments p(image, arguments, grid, {nullptr, needed});
  });
  EXPECT_THAT(null_scratch, HasSubstr("needs scratch memory; the launch passed a null address"));
  const std::string overflow = error_of([&] {
    tr::PackedArguments p(image, arguments, tr::make_grid(2147483647, 65535, 65535), {});
  });
  EXPECT_THAT(overflow, HasSubstr("scratch memory for the grid overflows 64 bits"));
  const std::string misaligned = error_of([&] {
    tr::PackedArguments p(image, arguments, grid, {reinterpret_cast<void*>(0x10008), needed});
  });
  EXPECT_THAT(misaligned, HasSubstr("is not aligned to the"));
}

// The op-workspace form (a Dim of the program count) gives what the launch checks against.
TEST(TritonScratch, ExpressionForTheWorkspaceMatchesTheGridForm) {
  tr::KernelImage with_profile = test_tile_copy::image();
  with_profile.global_scratch_bytes = 100;
  with_profile.profile_scratch_bytes = 24;
  with_profile.profile_scratch_align = 64;
  for (const tr::KernelImage* image : {&test_scale_add::image(), &test_tile_copy::image(),
                                       static_cast<const tr::KernelImage*>(&with_profile)}) {
    for (std::uint32_t programs : {0u, 1u, 3u, 6u, 1000u}) {
      const tr::Grid grid = tr::make_grid(programs);
      EXPECT_EQ(tr::scratch_bytes(*image, autoplugin::Dim(programs)).value(),
                static_cast<std::int64_t>(tr::scratch_bytes(*image, grid)))
          << image->name << " with profile scratch " << image->profile_scratch_bytes << ", "
          << programs << " programs";
    }
  }
  // 3 programs: 300 bytes of global scratch, profile scratch from 320 (its alignment), 72 bytes.
  EXPECT_EQ(tr::scratch_bytes(with_profile, tr::make_grid(3)), 392u);
  EXPECT_EQ(test_tile_copy::scratch_bytes(autoplugin::Dim(6)).value(),
            static_cast<std::int64_t>(test_tile_copy::scratch_bytes(tr::make_grid(3, 2))));
}

TEST(TritonGrid, LimitsAndCeilingDivision) {
  EXPECT_EQ(tr::cdiv(0, 4), 0);
  EXPECT_EQ(tr::cdiv(9, 4), 3);
  EXPECT_EQ(tr::cdiv(8, 4), 2);
  const tr::Grid grid = tr::make_grid(2147483647, 65535, 1);
  EXPECT_EQ(grid.x, 2147483647u);
  EXPECT_EQ(grid.programs(), 2147483647ull * 65535);
  EXPECT_THAT(error_of([] { tr::make_grid(2147483648); }),
              HasSubstr("axis 0 has 2147483648 programs; CUDA allows 0..2147483647"));
  EXPECT_THAT(error_of([] { tr::make_grid(1, 65536); }), HasSubstr("axis 1"));
  EXPECT_THAT(error_of([] { tr::make_grid(1, 1, -1); }),
              HasSubstr("axis 2 has -1 programs; it cannot be negative"));
}

// The generated launch() is typed from the signature.
using Stream = autoplugin::Stream;
static_assert(std::is_invocable_v<decltype(&test_scale_add::launch), tr::Grid, Stream, const float*,
                                  const float*, float*, std::int32_t, float>);
static_assert(!std::is_invocable_v<decltype(&test_scale_add::launch), tr::Grid, Stream,
                                   const double*, const float*, float*, std::int32_t, float>,
              "a pointer of another dtype does not convert");
static_assert(!std::is_invocable_v<decltype(&test_scale_add::launch), tr::Grid, Stream,
                                   const float*, const float*, float*, std::int32_t>,
              "every argument is required");
static_assert(
    std::is_invocable_v<decltype(&test_scalars::launch), tr::Grid, Stream, double*, bool,
                        std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                        std::uint32_t, std::uint64_t, float, float, double>);
static_assert(
    std::is_invocable_v<decltype(&test_tile_copy::launch), tr::Grid, Stream, autoplugin::Workspace,
                        const float*, float*, std::int32_t, std::int32_t>,
    "a kernel that needs scratch memory takes it");

TEST(TritonLaunch, WithoutCudaDriverIsAnErrorNotACrash) {
  if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(driver);
    GTEST_SKIP() << "a CUDA driver is installed: launching is tested by triton_gpu_test";
  }
  const std::string message = error_of([] {
    test_scale_add::launch(tr::make_grid(1), nullptr, float_address(0x1000), float_address(0x2000),
                           nullptr, 100, 0.5f);
  });
  EXPECT_THAT(message, HasSubstr("Triton kernel 'test_scale_add': the CUDA driver library "
                                 "(libcuda.so.1) cannot be loaded"));
}

TEST(TritonLaunch, EmptyGridLaunchesNothing) {
  // No driver call is made (none is needed, and none may be available here).
  EXPECT_NO_THROW(test_scale_add::launch(tr::make_grid(0), nullptr, float_address(0x1000),
                                         float_address(0x2000), nullptr, 0, 1.f));
}

}  // namespace

namespace {

// A family over BLOCK and the heuristic EVEN (VARIANTS "BLOCK=32|64, EVEN=True|False, num_warps=1"
// "BLOCK=1024, EVEN=True|False"), with the string constexpr MODE fixed to 'relu'.
TEST(TritonFamily, ListsEachVariantsValuesWarpsAndStages) {
  static_assert(test_row_scale::MODE == "relu");
  static_assert(test_row_scale::variants.size() == 6);
  static_assert(test_row_scale::find(64, false) == 3);
  static_assert(!test_row_scale::find(128, true).has_value());
  const std::int64_t blocks[] = {32, 32, 64, 64, 1024, 1024};
  for (std::size_t i = 0; i < 6; ++i) {
    const auto& variant = test_row_scale::variants[i];
    EXPECT_EQ(variant.BLOCK, blocks[i]) << i;
    EXPECT_EQ(variant.EVEN, i % 2 == 0) << i;
    EXPECT_EQ(variant.num_warps, i < 4 ? 1 : 4) << i;
    EXPECT_EQ(variant.num_stages, 3) << i;
    const tr::KernelImage& image = test_row_scale::image(i);
    EXPECT_EQ(image.num_warps, variant.num_warps) << i;
    EXPECT_STREQ(image.function, "row_scale_kernel");
    ASSERT_EQ(image.constants.size(), 3u);
    EXPECT_EQ(std::string(image.constants[0].value), std::to_string(variant.BLOCK));
    EXPECT_STREQ(image.constants[1].value, variant.EVEN ? "True" : "False");
    EXPECT_STREQ(image.constants[2].value, "'relu'");
  }
  EXPECT_STREQ(test_row_scale::image(5).name, "test_row_scale[BLOCK=1024, EVEN=False]");
  EXPECT_EQ(test_row_scale::select(1024, true), 4u);
}

TEST(TritonFamily, SelectNamesTheValuesAndTheVariants) {
  EXPECT_EQ(error_of([] { test_row_scale::select(128, true); }),
            "Triton kernel family 'test_row_scale' has no variant for BLOCK=128, EVEN=True (its "
            "variants: BLOCK=32, EVEN=True; BLOCK=32, EVEN=False; BLOCK=64, EVEN=True; BLOCK=64, "
            "EVEN=False; BLOCK=1024, EVEN=True; BLOCK=1024, EVEN=False); compile one more: "
            "VARIANTS of autoplugin_add_triton_kernel(test_row_scale)");
  EXPECT_THAT(error_of([] { test_row_scale::image(6); }),
              HasSubstr("'test_row_scale' has no variant for index 6 (its variants: BLOCK=32"));
}

TEST(TritonFamily, VariantsShareTheTypedLaunch) {
  // Arguments are checked against the variant's image before any launch: a null grid launches
  // nothing, so this runs without a GPU.
  for (std::size_t i = 0; i < test_row_scale::variants.size(); ++i) {
    EXPECT_EQ(error_of([&] {
                test_row_scale::launch(i, tr::Grid{0, 1, 1}, nullptr, float_address(256),
                                       static_cast<float*>(nullptr) + 64, 32, 0.5f);
              }),
              "")
        << i;
  }
  EXPECT_THAT(error_of([] {
                test_row_scale::launch(0, tr::Grid{0, 1, 1}, nullptr, float_address(250),
                                       float_address(256), 32, 0.5f);
              }),
              HasSubstr("'test_row_scale[BLOCK=32, EVEN=True]'"));
}

// One variant per @triton.autotune config (AUTOTUNE), selected by the config's index.
TEST(TritonFamily, AutotuneConfigsBecomeVariants) {
  static_assert(test_autotuned_add::variants.size() == 2);
  EXPECT_EQ(test_autotuned_add::variants[0].config, 0);
  EXPECT_EQ(test_autotuned_add::variants[0].BLOCK, 128);
  EXPECT_EQ(test_autotuned_add::variants[0].num_warps, 2);
  EXPECT_EQ(test_autotuned_add::variants[1].BLOCK, 1024);
  EXPECT_EQ(test_autotuned_add::variants[1].num_warps, 4);
  EXPECT_EQ(test_autotuned_add::variants[1].num_stages, 2);
  EXPECT_EQ(test_autotuned_add::image(1).num_warps, 4);
  EXPECT_EQ(test_autotuned_add::select(1), 1u);
  EXPECT_THAT(error_of([] { test_autotuned_add::select(2); }),
              HasSubstr("has no variant for config 2 (its variants: config 0; config 1)"));
}

}  // namespace
