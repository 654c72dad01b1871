#include "format/formatters.h"

namespace fathom::internal {

void AppendRootLine(const Event& event, std::string_view names, std::string& out) {
  out += event.root;
  out += ' ';
  out += names;
  out += ' ';
  if (event.root == "/") {
    out += event.path;
  } else if (event.path.size() <= event.root.size()) {
    out += '/';
  } else {
    out.append(event.path, event.root.size());
  }
  out += '\n';
}

namespace {

class InotifyFormatter final : public Formatter {
 public:
  void Write(const Event& event, std::string& out) override {
    AppendRootLine(event, KindNames(event.mask), out);
  }
  void Flush(std::string&) override {}
};

}  // namespace

std::unique_ptr<Formatter> MakeInotifyFormatter() { return std::make_unique<InotifyFormatter>(); }

}  // namespace fathom::internal
