// feed_args.h — the options that name the event stream a consumer command reads (`catalog
// follow`, `rules run`): --store FILE, --from ENDPOINT or --bus URL, the consumer's --name,
// keys and bus settings; and the feed they open.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "catalog/follow/event_feed.h"
#include "client/client_keys.h"
#include "fathom/client.h"

namespace fathom::cli {

struct FeedArgs {
  std::string store;
  std::string from;
  std::string bus;
  std::string name;  // the consumer's name
  client::KeyArgs keys;
  BusOptions bus_options;
};

// Adds --store, --from, --bus and --name (default `name`), and the connection options.
// `keeper` says who keeps the consumer's position ("the catalog", "the outbox").
void AddFeedOptions(CLI::App& cmd, FeedArgs& args, const std::string& name, const std::string& keeper);

// The feed of the one stream given, after event `since`.
Result<std::unique_ptr<catalog::EventFeed>> OpenFeed(const FeedArgs& a, uint64_t since);

}  // namespace fathom::cli
