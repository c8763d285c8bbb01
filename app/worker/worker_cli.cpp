#include "app/worker/worker_cli.h"

#include "experiments_db/db_error.h"

#include <sqlite3.h>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace headroom::worker {

namespace {

// The option named `name` in whichever command took it.
const CLI::Option* find_option(const CLI::App& root, const std::string& name) {
  if (const auto* o = root.get_option_no_throw(name)) return o;
  for (const auto* sub : root.get_subcommands({}))
    if (const auto* o = sub->get_option_no_throw(name)) return o;
  return nullptr;
}

// CLI11's wording for the two commonest slips ("Could not convert: --lr = fast", "--steps: At Most 1
// required but received 2") names neither what the option takes nor the fix; other errors read well.
std::string parse_error_text(const CLI::App& root, const CLI::ParseError& e) {
  const std::string what = e.what();
  if (e.get_name() == "ConversionError") {
    const size_t colon = what.find(": "), equals = what.find(" = ");
    if (colon != std::string::npos && equals != std::string::npos && equals > colon) {
      const std::string name = what.substr(colon + 2, equals - colon - 2), value = what.substr(equals + 3);
      const CLI::Option* option = find_option(root, name);
      const std::string type = option != nullptr ? option->get_type_name() : "";
      const std::string wanted = type == "INT"     ? "a whole number"
                                 : type == "UINT"  ? "a whole number >= 0"
                                 : type == "FLOAT" ? "a number"
                                                   : "a value of the kind " + name + " takes";
      return name + " " + value + " is not " + wanted +
             (option != nullptr ? " (" + option->get_description() + ")" : "");
    }
  }
  if (e.get_name() == "ExcludesError") return what + ": they contradict each other, give one";
  if (e.get_name() == "ArgumentMismatch" && what.find("At Most 1 required") != std::string::npos) {
    const size_t colon = what.find(':');
    if (colon != std::string::npos) return what.substr(0, colon) + " was given more than once: give it once";
  }
  return what;
}

}  // namespace

int run_worker_cli(int argc, char** argv) {
  CLI::App root{"headroom-worker: inspect attention layers, check LRB Theorem 1, train the papers' models",
                "headroom-worker"};
  root.set_version_flag("--version", std::string("headroom-worker ") + HEADROOM_VERSION);
  root.require_subcommand(1);
  std::vector<Command> commands = {register_inspect(root), register_represent(root), register_train(root),
                                   register_run(root),     register_enqueue(root),   register_serve(root),
                                   register_status(root),  register_export(root),    register_merge(root)};

  // CLI11 answers a misspelt command with "A subcommand is required"; name it and the commands.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const auto& c : commands) {
      known = known || c.app->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + c.app->get_name();
    }
    if (!known) {
      std::cerr << "headroom-worker: unknown command '" << argv[1] << "'; the commands are " << names
                << " (headroom-worker --help says what each does)\n";
      return kExitBadInput;
    }
  }
  try {
    root.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return root.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return root.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return root.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "headroom-worker: " << parse_error_text(root, e) << "\nRun 'headroom-worker --help' for usage.\n";
    return kExitBadInput;
  }
  for (auto& c : commands) {
    if (!c.app->parsed()) continue;
    try {
      return c.run();
    } catch (const db::DbError& e) {
      // A foreign, damaged, newer or unwritable DB: the message says which and what would work.
      std::cerr << "headroom-worker " << c.app->get_name() << ": " << e.what();
      if ((e.sqlite_code() & 0xFF) == SQLITE_BUSY && c.app->get_option_no_throw("--lock-wait") != nullptr)
        std::cerr << "; --lock-wait SECONDS waits longer";
      std::cerr << "\n";
      return kExitBadInput;
    } catch (const std::exception& e) {
      std::cerr << "headroom-worker " << c.app->get_name() << ": " << e.what() << "\n";
      return kExitFailure;
    }
  }
  return kExitBadInput;
}

}  // namespace headroom::worker
