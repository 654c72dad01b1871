// feed_args.cpp — AddFeedOptions, OpenFeed.
#include "cli/feed_args.h"

#include "cli/cli_util.h"

namespace fathom::cli {

void AddFeedOptions(CLI::App& cmd, FeedArgs& args, const std::string& name, const std::string& keeper) {
  args.name = name;
  cmd.add_option("--store", args.store, "Follow a store file (FILE or sqlite:FILE)")->type_name("FILE");
  cmd.add_option("--from", args.from, "Follow an aggregator (tcp://HOST:PORT, ipc://PATH)")->type_name("ENDPOINT");
  cmd.add_option("--bus", args.bus, "Follow a NATS JetStream bus (nats://HOST:PORT)")->type_name("URL");
  cmd.add_option("--name", args.name,
                 "The consumer's name: " + keeper + " keeps its position under it, and an aggregator or bus keeps "
                 "its acknowledgements")
      ->default_str(name);
  AddConnectionOptions(cmd, args.keys, args.bus_options, "consumer");
}

Result<std::unique_ptr<catalog::EventFeed>> OpenFeed(const FeedArgs& a, uint64_t since) {
  const int given = !a.store.empty() + !a.from.empty() + !a.bus.empty();
  if (given != 1) {
    return Status::Error(
        "give the stream to follow, once: --store FILE (a store written by "
        "fathom watch or aggregate), --from tcp://HOST:PORT (an aggregator) or "
        "--bus nats://HOST:PORT");
  }
  if (!a.store.empty()) {
    FATHOM_ASSIGN_OR_RETURN(std::string file, StoreFile(a.store));
    return catalog::OpenStoreFeed(file, since);
  }
  SubscribeOptions options;
  options.endpoint = a.from.empty() ? a.bus : a.from;
  options.name = a.name;
  options.bus = a.bus_options;
  FATHOM_ASSIGN_OR_RETURN(options.keys, client::LoadClientKeys(a.keys, options.endpoint));
  return catalog::OpenSubscriberFeed(std::move(options), since);
}

}  // namespace fathom::cli
