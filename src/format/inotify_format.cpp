#include "format/formatters.h"

namespace fathom::internal {

void AppendRootLine(const Event& event, std::string_view names, std::string& out) {
  out += event.root;
  out += ' ';
  out += names;
  AppendRelativeTail(event, out);
}

void AppendRelativeTail(const Event& event, std::string& out) {
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
    out += event.root;
    out += ' ';
    AppendKindNames(event.mask, out);
    AppendRelativeTail(event, out);
  }
  void Flush(std::string&) override {}
};

}  // namespace

std::unique_ptr<Formatter> MakeInotifyFormatter() { return std::make_unique<InotifyFormatter>(); }

}  // namespace fathom::internal
