// LD_PRELOAD shim for the hostile suite: link() fails as on a filesystem
// without hard links (FAT, some network filesystems), so result files must
// be saved by an exclusive create instead.
#include <cerrno>

extern "C" int link(const char*, const char*) {
  errno = EPERM;
  return -1;
}
