#include "platform/dynamic_library.hpp"

#include <dlfcn.h>
#include <link.h>

#include "platform/error.hpp"

namespace hs {

DynamicLibrary::DynamicLibrary(const std::string& name) : name_(name) {
  // RTLD_LOCAL: two NVRTC versions export the same names; each is reached
  // only through its own handle.
  handle_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = dlerror();
    throw Unavailable("cannot load " + name + ": " + (why ? why : "unknown dlopen error"));
  }
}

std::string DynamicLibrary::path() const {
  link_map* map = nullptr;
  if (dlinfo(handle_, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name || !*map->l_name) return name_;
  return map->l_name;
}

void* DynamicLibrary::address_of(const char* symbol) const {
  dlerror();  // clear any earlier error
  void* address = dlsym(handle_, symbol);
  if (!address) {
    const char* why = dlerror();
    throw Unavailable(name_ + " has no " + symbol + (why ? std::string(" (") + why + ")" : std::string()));
  }
  return address;
}

}  // namespace hs
