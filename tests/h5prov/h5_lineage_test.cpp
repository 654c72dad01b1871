// Lineage on traces made by hand: job 1 creates and writes /grp/ds; job 2 reads it and writes
// /out; job 3 reads /grp/ds of another file that replaced the first at the same path. Datasets
// are matched across traces by the file's device and inode and the dataset's address, and the
// W3C PROV-JSON export holds exactly the entities, activities, agents and relations they imply.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "fathom/h5prov.h"
#include "h5prov/h5_trace_builder.h"

namespace fathom::h5prov {
namespace {

namespace f = format;
using testing::ProvRelations;
using testing::TraceBuilder;

constexpr uint64_t kDatasetAddress = 801, kOutAddress = 2001;

Trace Writer() {
  TraceBuilder b("w.fh5", -1, 10, "job1");
  b.t.objects[2].address = kDatasetAddress;
  b.Add(f::kFcreate, 100, 1).Add(f::kDcreate2, 200, 2);
  b.Add(f::kDwrite, 1000, 2, 24).Select("regular", {2, 3}, {1, 1});
  b.Add(f::kDclose, 50, 2).Add(f::kFclose, 50, 1);
  return b.t;
}

Trace Reader() {
  TraceBuilder b("r.fh5", -1, 20, "job2");
  b.t.objects[2].address = kDatasetAddress;
  b.AddObject(3, "dataset", 1, "/out").address = kOutAddress;
  b.At(1000000).Add(f::kFopen, 100, 1).Add(f::kDopen2, 100, 2);
  b.Add(f::kDread, 500, 2, 192).Select("all");
  b.Add(f::kDcreate2, 200, 3).Add(f::kDwrite, 300, 3, 64).Select("all");
  return b.t;
}

// Reads /grp/ds of /data/f.h5 after the file was replaced (another inode).
Trace ReaderOfTheReplacement() {
  TraceBuilder b("x.fh5", -1, 30, "job3");
  b.t.objects[1].ino = 43;
  b.t.objects[2].address = kDatasetAddress;
  b.At(2000000).Add(f::kFopen, 100, 1).Add(f::kDopen2, 100, 2).Add(f::kDread, 500, 2, 192).Select("all");
  return b.t;
}

TEST(H5Lineage, AWriterAndAReaderInTwoJobsAreJoinedByFileIdentityAndAddress) {
  const Lineage l = BuildLineage({Writer(), Reader()});
  ASSERT_EQ(l.processes.size(), 2u);
  EXPECT_EQ(l.processes[0].job, "job1");
  EXPECT_EQ(l.processes[0].start_wall_ns, testing::kEpochNs + 1000);
  EXPECT_EQ(l.processes[0].end_wall_ns, testing::kEpochNs + 2400);
  ASSERT_EQ(l.datasets.size(), 2u);
  const LineageDataset& ds = l.datasets[0];
  EXPECT_EQ(ds.file, "/data/f.h5");
  EXPECT_EQ(ds.path, "/grp/ds");
  EXPECT_EQ(ds.dev, 7u);
  EXPECT_EQ(ds.ino, 42u);
  EXPECT_EQ(ds.address, kDatasetAddress);
  ASSERT_EQ(ds.uses.size(), 2u);
  const DatasetUse& wrote = ds.uses[0];
  EXPECT_EQ(wrote.process, 0u);
  EXPECT_TRUE(wrote.created);
  EXPECT_EQ(wrote.opens, 1u);
  EXPECT_EQ(wrote.writes, 1u);
  EXPECT_EQ(wrote.write_bytes, 24u);
  EXPECT_EQ(wrote.reads, 0u);
  EXPECT_EQ(wrote.first_written_ns, testing::kEpochNs + 1300);  // the end of H5Dcreate2
  EXPECT_EQ(wrote.last_written_ns, testing::kEpochNs + 2300);   // the end of H5Dwrite
  EXPECT_EQ(wrote.selections, (std::vector<std::string>{"regular start=0,0 count=2,3"}));
  const DatasetUse& read = ds.uses[1];
  EXPECT_EQ(read.process, 1u);
  EXPECT_FALSE(read.created);
  EXPECT_EQ(read.reads, 1u);
  EXPECT_EQ(read.read_bytes, 192u);
  EXPECT_EQ(read.first_read_ns, testing::kEpochNs + 1000200);
  EXPECT_EQ(read.selections, (std::vector<std::string>{"all"}));
  EXPECT_EQ(l.datasets[1].path, "/out");

  ASSERT_EQ(l.edges.size(), 1u);
  EXPECT_EQ(l.edges[0].dataset, 0u);
  EXPECT_EQ(l.edges[0].writer, 0u);
  EXPECT_EQ(l.edges[0].reader, 1u);
  EXPECT_EQ(l.edges[0].written_ns, testing::kEpochNs + 1300);
  EXPECT_EQ(l.edges[0].read_ns, testing::kEpochNs + 1000200);
  ASSERT_EQ(l.derivations.size(), 1u);
  EXPECT_EQ(l.derivations[0].generated, 1u);
  EXPECT_EQ(l.derivations[0].used, 0u);
  EXPECT_EQ(l.derivations[0].process, 1u);
}

TEST(H5Lineage, AFileReplacedUnderTheSamePathStartsALineageOfItsOwn) {
  const Lineage l = BuildLineage({Writer(), Reader(), ReaderOfTheReplacement()});
  ASSERT_EQ(l.datasets.size(), 3u);  // /grp/ds of inode 42, /grp/ds of inode 43, /out
  EXPECT_EQ(l.datasets[0].ino, 42u);
  EXPECT_EQ(l.datasets[1].ino, 43u);
  EXPECT_EQ(l.datasets[1].uses.size(), 1u);
  ASSERT_EQ(l.edges.size(), 1u);  // no writer -> reader edge into job 3
  EXPECT_EQ(l.edges[0].reader, 1u);
}

TEST(H5Lineage, AReadBeforeTheWriteIsNoEdge) {
  Trace early = Reader();
  for (Call& c : early.calls) c.start -= 999500;  // job 2 reads before job 1 wrote
  const Lineage l = BuildLineage({Writer(), early});
  EXPECT_TRUE(l.edges.empty());
}

TEST(H5Lineage, FocusKeepsTheDatasetItsDerivationsAndTheirProcesses) {
  const Lineage all = BuildLineage({Writer(), Reader(), ReaderOfTheReplacement()});
  auto out = FocusLineage(all, "/data/f.h5:/out");
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->datasets.size(), 2u);  // /out and the /grp/ds it came from (inode 42)
  EXPECT_EQ(out->datasets[0].ino, 42u);
  EXPECT_EQ(out->datasets[1].path, "/out");
  ASSERT_EQ(out->processes.size(), 2u);
  EXPECT_EQ(out->processes[0].job, "job1");
  EXPECT_EQ(out->processes[1].job, "job2");
  EXPECT_TRUE(out->edges.empty());  // the edge is about /grp/ds, not /out
  ASSERT_EQ(out->derivations.size(), 1u);
  EXPECT_EQ(out->derivations[0].generated, 1u);
  EXPECT_EQ(out->derivations[0].used, 0u);
  EXPECT_EQ(out->derivations[0].process, 1u);
  EXPECT_FALSE(FocusLineage(all, "/data/f.h5:/missing").ok());
}

TEST(H5Lineage, TextNamesWhoDidWhatAndTheEdges) {
  const std::string text = LineageText(BuildLineage({Writer(), Reader()}));
  EXPECT_NE(text.find("/data/f.h5:/grp/ds  (device 7 inode 42, address 801)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("job job1 pid 10 rank -1 (node1, uid 1000) 2027-01-15T08:00:00.000001Z .. "
                      "2027-01-15T08:00:00.000002Z: created, wrote 24 B in 1 call(s); selections: regular "
                      "start=0,0 count=2,3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nWriter -> reader\n  /data/f.h5:/grp/ds: job job1 pid 10"), std::string::npos) << text;
  EXPECT_NE(text.find("\nDerived datasets\n  /data/f.h5:/out from /data/f.h5:/grp/ds by job job2 pid 20"),
            std::string::npos)
      << text;
}

// The ids of a PROV-JSON section.
std::set<std::string> Ids(const nlohmann::json& doc, const char* section) {
  std::set<std::string> ids;
  for (const auto& [id, value] : doc[section].items()) ids.insert(id);
  return ids;
}

TEST(H5Lineage, ProvJsonHoldsExactlyTheExpectedEntitiesAndRelations) {
  const auto doc = nlohmann::json::parse(LineageProvJson(BuildLineage({Writer(), Reader()})));
  using Pairs = std::multiset<std::pair<std::string, std::string>>;
  const std::string file = "fathom:file/7.42", ds = "fathom:dataset/7.42/801", out = "fathom:dataset/7.42/2001";
  const std::string job1 = "fathom:process/job1/node1/10", job2 = "fathom:process/job2/node1/20";
  EXPECT_EQ(doc["prefix"]["fathom"], "urn:fathom:h5:");
  EXPECT_EQ(Ids(doc, "entity"), (std::set<std::string>{file, ds, out}));
  EXPECT_EQ(Ids(doc, "activity"), (std::set<std::string>{job1, job2}));
  EXPECT_EQ(Ids(doc, "agent"), (std::set<std::string>{"fathom:user/1000", "fathom:job/job1", "fathom:job/job2"}));
  EXPECT_EQ(ProvRelations(doc, "used", "prov:activity", "prov:entity"), (Pairs{{job2, ds}}));
  EXPECT_EQ(ProvRelations(doc, "wasGeneratedBy", "prov:entity", "prov:activity"), (Pairs{{ds, job1}, {out, job2}}));
  EXPECT_EQ(ProvRelations(doc, "wasDerivedFrom", "prov:generatedEntity", "prov:usedEntity"), (Pairs{{out, ds}}));
  EXPECT_EQ(ProvRelations(doc, "wasAssociatedWith", "prov:activity", "prov:agent"),
            (Pairs{{job1, "fathom:user/1000"}, {job1, "fathom:job/job1"}, {job2, "fathom:user/1000"},
                   {job2, "fathom:job/job2"}}));
  EXPECT_EQ(ProvRelations(doc, "hadMember", "prov:collection", "prov:entity"), (Pairs{{file, ds}, {file, out}}));
  EXPECT_EQ(doc["activity"][job1]["prov:startTime"], "2027-01-15T08:00:00.000001Z");
  EXPECT_EQ(doc["activity"][job1]["prov:endTime"], "2027-01-15T08:00:00.000002Z");
  EXPECT_EQ(doc["entity"][ds]["fathom:path"], "/grp/ds");
  EXPECT_EQ(doc["entity"][ds]["prov:type"], "fathom:dataset");
  EXPECT_EQ(doc["wasDerivedFrom"].begin().value()["prov:activity"], job2);
  const std::set<std::string> sections = {"prefix", "entity", "activity", "agent", "used", "wasGeneratedBy",
                                          "wasDerivedFrom", "wasAssociatedWith", "hadMember"};
  for (const auto& [key, value] : doc.items()) EXPECT_TRUE(sections.count(key)) << key;
}

}  // namespace
}  // namespace fathom::h5prov
