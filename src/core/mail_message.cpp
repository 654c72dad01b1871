// mail_message.cpp — MailText, SendmailArgv.
#include "core/mail_message.h"

namespace fathom {
namespace {

std::string OneLine(std::string value) {
  for (char& c : value) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return value;
}

}  // namespace

std::string MailText(const MailMessage& m) {
  std::string to;
  for (const std::string& a : m.to) to += (to.empty() ? "" : ", ") + a;
  std::string text = "To: " + OneLine(to) + "\nFrom: " + OneLine(m.from) + "\nSubject: " + OneLine(m.subject) + "\n";
  for (const std::string& h : m.headers) text += OneLine(h) + "\n";
  return text + "Content-Type: text/plain; charset=utf-8\n\n" + m.body;
}

std::vector<std::string> SendmailArgv(const std::string& sendmail) { return {sendmail, "-t", "-oi"}; }

}  // namespace fathom
