// `fathom token create|list|revoke` — the tokens `fathom serve` accepts (fathom/web.h).
#include <cstdio>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "fathom/web.h"

namespace fathom::cli {
namespace {

struct TokenArgs {
  std::string tokens = "fathom-tokens.db";
  web::TokenInfo info;
  std::string expires;
  std::string id;
};

int Create(const TokenArgs& a) {
  web::TokenInfo info = a.info;
  if (!a.expires.empty()) {
    auto after = ParseDuration(a.expires);
    if (!after.ok()) return Fail("token", after.status().message(), kExitUsage);
    info.expires_ns = NowNs() + std::chrono::duration_cast<std::chrono::nanoseconds>(after.value()).count();
  }
  auto token = web::CreateToken(a.tokens, info);
  if (!token.ok()) return Fail("token", token.status().message(), kExitFailure);
  std::printf("%s\n", token->c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "fathom token: made a%s token for %s in %s; it is shown only this once\n",
               info.admin ? "n admin" : "", info.user.c_str(), a.tokens.c_str());
  return kExitOk;
}

int List(const TokenArgs& a) {
  auto tokens = web::ListTokens(a.tokens);
  if (!tokens.ok()) return Fail("token", tokens.status().message(), kExitFailure);
  std::printf("%-12s  %-12s  %-5s  %-20s  %s\n", "id", "user", "admin", "expires", "paths");
  for (const web::TokenInfo& t : tokens.value()) {
    std::string paths;
    for (const std::string& p : t.paths) paths += (paths.empty() ? "" : " ") + p;
    std::string expires = "never";
    if (t.expires_ns) {
      time_t s = static_cast<time_t>(t.expires_ns / 1'000'000'000);
      char buf[32];
      std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", std::localtime(&s));
      expires = buf;
    }
    std::printf("%-12s  %-12s  %-5s  %-20s  %s\n", t.id.c_str(), t.user.c_str(), t.admin ? "yes" : "no",
                expires.c_str(), paths.c_str());
  }
  return kExitOk;
}

}  // namespace

CommandRunner AddTokenCommand(CLI::App& app) {
  auto a = std::make_shared<TokenArgs>();
  CLI::App* cmd = app.add_subcommand("token", "Make, list and revoke the tokens fathom serve accepts");
  cmd->require_subcommand(1);
  cmd->add_option("--tokens", a->tokens, "The tokens file (SQLite; only hashes of the tokens are kept)")
      ->default_str(a->tokens)
      ->type_name("FILE");
  CLI::App* create = cmd->add_subcommand("create", "Make a token and print it (only this once)");
  create->add_option("--user", a->info.user, "Whom the token is for: a user name or number of this system (its jobs and traces are shown)")
      ->required();
  create->add_option("--paths", a->info.paths, "Paths it grants, with everything under them (/ grants all)")
      ->required()
      ->type_name("PATH ...");
  create->add_flag("--admin", a->info.admin, "Also allow actions (run a policy, replay a delivery)");
  create->add_option("--expires", a->expires, "Valid for this long (12h, 30d); default: until revoked")
      ->type_name("DURATION");
  CLI::App* list = cmd->add_subcommand("list", "List the tokens: id, user, grants, expiry (never the tokens)");
  CLI::App* revoke = cmd->add_subcommand("revoke", "Revoke a token by its id (fathom token list)");
  revoke->add_option("id", a->id, "The token's id, or at least its first 6 digits")->required();
  cmd->footer(
      "\nExamples:\n"
      "  fathom token create --tokens tokens.db --user alice --paths /data/alice /scratch/alice\n"
      "  fathom token create --tokens tokens.db --user ops --paths / --admin --expires 30d\n"
      "  fathom token revoke --tokens tokens.db 3f9a1c");
  return [a, create, list, revoke] {
    if (create->parsed()) return Create(*a);
    if (list->parsed()) return List(*a);
    if (revoke->parsed()) {
      Status s = web::RevokeToken(a->tokens, a->id);
      if (!s.ok()) return Fail("token", s.message(), kExitFailure);
      std::fprintf(stderr, "fathom token: revoked %s; servers refuse it within 2 s\n", a->id.c_str());
      return kExitOk;
    }
    return kExitUsage;
  };
}

}  // namespace fathom::cli
