#include "core/io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace headroom::core {

bool write_file_atomically(const std::string& path, std::string_view bytes, std::string* error) {
  static std::atomic<unsigned> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  auto fail = [&](const std::string& message) {
    if (error) *error = message;
    std::remove(tmp.c_str());
    return false;
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return fail("cannot write '" + path + "': " + std::strerror(errno) +
                " (check the directory exists and is writable)");
  const char* data = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = n < 0 ? std::strerror(errno) : "nothing written";
      ::close(fd);
      return fail("failed while writing '" + path + "' (" + why +
                  "; is the disk full?); the previous file is unchanged");
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    return fail("failed while writing '" + path + "' (" + why + "); the previous file is unchanged");
  }
  if (::close(fd) != 0)
    return fail("failed while writing '" + path + "' (" + std::strerror(errno) + "); the previous file is unchanged");
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return fail("cannot move the finished file into place at '" + path + "': " + std::strerror(errno) +
                "; the previous file is unchanged");
  return true;
}

}  // namespace headroom::core
