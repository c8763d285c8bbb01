#include "app/gui/explorer/reference_csv.h"

#include <gtest/gtest.h>

#include "tests/explorer/explorer_test_util.h"

namespace headroom::explorer {
namespace {

TEST(ReferenceCsv, CommentsHeaderQuotedFieldsAndLineNumbers) {
  std::string error;
  const auto t = parse_reference_csv("# a comment\r\n# another\nratio,widths\n1,\"360 384\"\n\n2,\"a, \"\"b\"\"\"\n",
                                     "x.csv", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->file, "x.csv");
  EXPECT_EQ(t->header, (std::vector<std::string>{"ratio", "widths"}));
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0].line, 4);
  EXPECT_EQ(t->rows[0].fields, (std::vector<std::string>{"1", "360 384"}));
  EXPECT_EQ(t->rows[1].line, 6);
  EXPECT_EQ(t->rows[1].fields[1], "a, \"b\"");
  EXPECT_EQ(t->column("widths"), 1u);
  EXPECT_FALSE(t->column("depth"));
  EXPECT_TRUE(t->problems.empty());
}

TEST(ReferenceCsv, BadRowsAreSkippedWithTheirLine) {
  const auto t = parse_reference_csv("a,b\n1,2\n1,2,3\n\"open,4\n", "y.csv", nullptr);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rows.size(), 1u);
  EXPECT_EQ(t->problems, (std::vector<std::string>{"y.csv line 3: 3 fields, the header has 2 (row skipped)",
                                                   "y.csv line 4: a quoted field is not closed (row skipped)"}));
}

TEST(ReferenceCsv, NoHeaderOrNoFileIsAnError) {
  std::string error;
  EXPECT_FALSE(parse_reference_csv("# only comments\n", "z.csv", &error));
  EXPECT_EQ(error, "z.csv: no header row (expected comment lines starting with #, then a header)");
  EXPECT_FALSE(read_reference_csv("/nonexistent/dir/th_t5.csv", &error));
  EXPECT_EQ(error, "cannot read reference file /nonexistent/dir/th_t5.csv");
}

TEST(ReferenceCsv, ReadsTheShippedThT5Table) {
  std::string error;
  const auto t = read_reference_csv(testing::reference_dir() + "/th_t5.csv", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->file, "th_t5.csv");
  EXPECT_TRUE(t->problems.empty());
  EXPECT_EQ(t->rows.size(), 23u);
  ASSERT_TRUE(t->column("ln_ppl_65k"));
  EXPECT_EQ(t->rows[0].line, 5);
  EXPECT_EQ(t->rows[0].fields[*t->column("ln_ppl_65k")], "2.010");
}

}  // namespace
}  // namespace headroom::explorer
