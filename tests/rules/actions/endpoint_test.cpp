// What per-endpoint concurrency counts as one endpoint: scheme, host and port, defaults made
// explicit, case folded, paths, queries and user information left out.
#include "rules/actions/endpoint.h"

#include <gtest/gtest.h>

namespace fathom::rules {
namespace {

TEST(EndpointTest, SchemeHostAndPortWithTheDefaultPortExplicit) {
  EXPECT_EQ(EndpointOf("https://Hooks.Example/a/b?c=d#e"), "https://hooks.example:443");
  EXPECT_EQ(EndpointOf("http://hooks.example/a"), "http://hooks.example:80");
  EXPECT_EQ(EndpointOf("HTTP://127.0.0.1:8080"), "http://127.0.0.1:8080");
  EXPECT_EQ(EndpointOf("https://user:pw@hooks.example:8443/x"), "https://hooks.example:8443");
  EXPECT_EQ(EndpointOf("http://[::1]:9000/hook"), "http://[::1]:9000");
  EXPECT_EQ(EndpointOf("http://[fe80::1]/hook"), "http://[fe80::1]:80");
  EXPECT_EQ(EndpointOf("ftp://x/y"), "ftp://x/y");
}

TEST(EndpointTest, TwoPathsOfOneServerAreOneEndpointTwoPortsTwo) {
  EXPECT_EQ(EndpointOf("http://127.0.0.1:5000/a"), EndpointOf("http://127.0.0.1:5000/b"));
  EXPECT_NE(EndpointOf("http://127.0.0.1:5000/a"), EndpointOf("http://127.0.0.1:5001/a"));
  EXPECT_NE(EndpointOf("http://hooks.example/a"), EndpointOf("https://hooks.example/a"));
  EXPECT_EQ(EndpointOf("https://hooks.example/a"), EndpointOf("https://hooks.example:443/b"));
}

}  // namespace
}  // namespace fathom::rules
