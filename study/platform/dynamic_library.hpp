// A shared library loaded at run time with dlopen, and typed lookups of its
// functions. libcuda, libnvrtc and libnvidia-ml are loaded this way so the
// binary starts (and reports cleanly) on a machine without them, and so
// several NVRTC versions can live in one process.
#pragma once
#include <string>

namespace hs {

class DynamicLibrary {
 public:
  // `name` is a path, or a file name the default search path resolves.
  // Throws Unavailable with dlerror()'s reason when it cannot be loaded.
  explicit DynamicLibrary(const std::string& name);

  // The file that was loaded, as the dynamic linker resolved it.
  std::string path() const;

  // Throws Unavailable naming the library when `symbol` is missing.
  template <typename Function>
  Function function(const char* symbol) const {
    return reinterpret_cast<Function>(address_of(symbol));
  }

 private:
  void* address_of(const char* symbol) const;

  // Never closed: CUDA's libraries do not support being unloaded while the
  // objects they made (contexts, modules, programs) may still exist.
  void* handle_ = nullptr;
  std::string name_;
};

}  // namespace hs

// Sets `table.fn` to the library's `fn`, looked up by the name the header
// maps it to (cuda.h renames some functions, e.g. cuCtxPushCurrent to
// cuCtxPushCurrent_v2, and that is the symbol the library exports).
#define HS_STRINGIFY_EXPANDED(x) #x
#define HS_STRINGIFY(x) HS_STRINGIFY_EXPANDED(x)
#define HS_LOAD_FUNCTION(library, table, fn) \
  ((table).fn = (library).function<decltype(&::fn)>(HS_STRINGIFY(fn)))

// A library's function table, each function named once in a list macro
// (LIST(F) applies F to every name):
//   #define HS_NVML_FUNCTIONS(F) F(nvmlInit_v2) F(nvmlShutdown)
//   struct Api { HS_NVML_FUNCTIONS(HS_FUNCTION_MEMBER) };
//   HS_LOAD_FUNCTIONS(library, api, HS_NVML_FUNCTIONS);
#define HS_FUNCTION_MEMBER(fn) decltype(&::fn) fn = nullptr;
#define HS_LOAD_ONE_FUNCTION(fn) HS_LOAD_FUNCTION(hs_library_, hs_table_, fn);
#define HS_LOAD_FUNCTIONS(library, table, LIST) \
  do {                                           \
    const auto& hs_library_ = (library);         \
    auto& hs_table_ = (table);                   \
    LIST(HS_LOAD_ONE_FUNCTION)                   \
  } while (0)
