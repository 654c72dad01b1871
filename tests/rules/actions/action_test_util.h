// action_test_util.h — what the action tests share: a file's content, this process's stderr
// captured while a command runs (a command's stdout goes there), and a delivery of events at
// given paths. CaptureStderr redirects the whole process's fd 2: one test thread at a time.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "rules/actions/action.h"

namespace fathom::rules::testing {

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `body` with fd 2 pointing at `file`; returns what was written there.
inline std::string CaptureStderr(const std::string& file, const std::function<void()>& body) {
  const int saved = dup(STDERR_FILENO);
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  dup2(fd, STDERR_FILENO);
  close(fd);
  body();
  dup2(saved, STDERR_FILENO);
  close(saved);
  return ReadAll(file);
}

inline DeliveryContext Delivery(const std::vector<std::string>& paths, const std::string& root = "/data") {
  DeliveryContext c;
  c.delivery_id = "dlv_01J9Z3";
  c.attempt = 1;
  c.rule = "thumbnails";
  uint64_t id = 40;
  for (const std::string& p : paths) {
    Event e;
    e.id = ++id;
    e.ts_ns = 1'732'200'000'123'456'789;
    e.mask = kind::kCloseWrite;
    e.root = root;
    e.path = p;
    e.source = "inotify";
    c.events.push_back(e);
  }
  c.payload_json = DeliveryPayload(c);
  return c;
}

// File names that a shell or a careless parser would act on.
inline std::vector<std::string> HostileNames() {
  return {"two  spaces", "quote\"double", "quote'single", "$(touch PWNED)", "`touch PWNED`", "new\nline",
          "-rf", "--help", "semi;colon|pipe&amp>gt", "star*?[a]", "\xff\xfe not UTF-8 \xc3", "caf\xc3\xa9 ok", "{path}"};
}

}  // namespace fathom::rules::testing
