// mail_message.h — a plain-text e-mail for the local sendmail interface (policy alerts, a
// rule's mail action): the message text, and the command line that takes it.
//
// Contract: the message is RFC 5322 header lines (To, From, Subject, the extra headers,
// Content-Type: text/plain; charset=utf-8), an empty line and the body, lines ending in "\n"
// (sendmail converts them). A CR or LF inside a header value is written as a space, so no
// value can add a header. The command is `SENDMAIL -t -oi`: recipients from the To: header,
// a line of a single '.' not taken as the end of the message; the message goes on its stdin.
// Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

namespace fathom {

struct MailMessage {
  std::vector<std::string> to;
  std::string from;
  std::string subject;
  std::vector<std::string> headers;  // "Name: value", after Subject
  std::string body;
};

std::string MailText(const MailMessage& message);

// {sendmail, "-t", "-oi"}.
std::vector<std::string> SendmailArgv(const std::string& sendmail);

}  // namespace fathom
