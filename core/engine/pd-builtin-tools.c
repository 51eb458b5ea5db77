/* pd-builtin-tools.c: the table of built-in tools — one row each, read by
 * PdBuiltinTool (pd-tool.c) and registered in this order by
 * pd_tool_registry_add_builtins().
 *
 * A row says everything the model and the approval policy see of a tool:
 * its name, description, JSON schema, safety class and effects (seed 000,
 * classifyToolCall), the arguments read before it runs (in this order:
 * the first wrong one is the call's error), and which functions run it,
 * preview it for a person asked to approve it, and make the state one
 * instance holds.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include "pd-tool-private.h"

const PdToolInfo _pd_builtin_tools[] = {
  {
    .name = "read_file",
    .description = "Read a UTF-8 text file. Returns the text as it is (no line numbers). Large files are "
                   "cut at the output limit at a line boundary, with a note telling the offset to continue "
                   "from. Binary files are refused.",
    .schema =
      "{"
      "\"type\":\"object\","
      "\"properties\":{"
        "\"path\":{\"type\":\"string\",\"description\":\"File path, relative to the working directory.\"},"
        "\"offset\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Optional. First line to show, counting from 1.\"},"
        "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Optional. Maximum number of lines to show.\"}"
      "},"
      "\"required\":[\"path\"]"
      "}",
    .safety = PD_TOOL_READ_ONLY,
    .effects = PD_TOOL_EFFECTS_READ,
    .args = {
      { "path", PD_TOOL_ARG_STRING, .required = TRUE },
      { "offset", PD_TOOL_ARG_INT, .min = 1, .max = G_MAXINT64, .fallback = 1 },
      { "limit", PD_TOOL_ARG_INT, .min = 1, .max = G_MAXINT64, .fallback = G_MAXINT64 },
    },
    .run = _pd_read_file_run,
  },
  {
    .name = "list_dir",
    .description = "List the entries of a directory, sorted by name, one per line. Directories end with "
                   "'/'; a symbolic link shows after ' -> ' its target relative to the working "
                   "directory, or that it leads out of it or nowhere.",
    .schema =
      "{"
      "\"type\":\"object\","
      "\"properties\":{"
        "\"path\":{\"type\":\"string\",\"description\":\"Optional. Directory, relative to the working directory (default: the working directory).\"}"
      "}"
      "}",
    .safety = PD_TOOL_READ_ONLY,
    .effects = PD_TOOL_EFFECTS_READ,
    .args = { { "path", PD_TOOL_ARG_STRING } },
    .run = _pd_list_dir_run,
  },
  {
    .name = "grep",
    .description = "Search text files for a regular expression (PCRE syntax), recursively below a "
                   "directory. Prints path:line:text for each matching line, in path order. Skips .git, "
                   "binary files and symbolic links; stops after 200 matches. Finding nothing is not an "
                   "error. A line on which the pattern would backtrack too much is reported, not searched.",
    .schema =
      "{"
      "\"type\":\"object\","
      "\"properties\":{"
        "\"pattern\":{\"type\":\"string\",\"description\":\"A Perl-compatible regular expression, matched against each line.\"},"
        "\"path\":{\"type\":\"string\",\"description\":\"Optional. File or directory to search, relative to the working directory (default: the working directory).\"},"
        "\"glob\":{\"type\":\"string\",\"description\":\"Optional. Only search files whose name matches this glob, e.g. *.c; a glob with '/' is matched against the path below the search directory.\"}"
      "},"
      "\"required\":[\"pattern\"]"
      "}",
    .safety = PD_TOOL_READ_ONLY,
    .effects = PD_TOOL_EFFECTS_READ,
    .args = {
      { "pattern", PD_TOOL_ARG_STRING, .required = TRUE },
      { "path", PD_TOOL_ARG_STRING },
      { "glob", PD_TOOL_ARG_STRING },
    },
    .run = _pd_grep_run,
  },
  {
    .name = "write_file",
    .description = "Create a file or replace its whole content. Missing parent directories are created; "
                   "the replacement is atomic. Prefer edit_file for changes to part of an existing file.",
    .schema =
      "{"
      "\"type\":\"object\","
      "\"properties\":{"
        "\"path\":{\"type\":\"string\",\"description\":\"File path, relative to the working directory. Missing parent directories are created.\"},"
        "\"content\":{\"type\":\"string\",\"description\":\"The complete new content of the file.\"}"
      "},"
      "\"required\":[\"path\",\"content\"]"
      "}",
    .safety = PD_TOOL_MUTATING,
    .effects = PD_TOOL_EFFECTS_WRITE,
    .args = {
      { "path", PD_TOOL_ARG_STRING, .required = TRUE },
      { "content", PD_TOOL_ARG_STRING, .required = TRUE },
    },
    .run = _pd_write_file_run,
    .preview = _pd_write_file_preview,
  },
  {
    .name = "edit_file",
    .description = "Replace an exact string in a text file. old_string must match the file byte for byte "
                   "and occur exactly once, unless replace_all is true. Read the file first.",
    .schema =
      "{"
      "\"type\":\"object\","
      "\"properties\":{"
        "\"path\":{\"type\":\"string\",\"description\":\"File path, relative to the working directory.\"},"
        "\"old_string\":{\"type\":\"string\",\"description\":\"The exact text to replace, including whitespace and indentation. It must occur exactly once unless replace_all is true.\"},"
        "\"new_string\":{\"type\":\"string\",\"description\":\"The replacement text.\"},"
        "\"replace_all\":{\"type\":\"boolean\",\"description\":\"Optional. Replace every occurrence instead of exactly one.\"}"
      "},"
      "\"required\":[\"path\",\"old_string\",\"new_string\"]"
      "}",
    .safety = PD_TOOL_MUTATING,
    .effects = PD_TOOL_EFFECTS_WRITE,
    .args = {
      { "path", PD_TOOL_ARG_STRING, .required = TRUE },
      { "old_string", PD_TOOL_ARG_STRING, .required = TRUE },
      { "new_string", PD_TOOL_ARG_STRING, .required = TRUE },
      { "replace_all", PD_TOOL_ARG_BOOL },
    },
    .run = _pd_edit_file_run,
    .preview = _pd_edit_file_preview,
  },
  {
    .name = "shell",
    .description = "Run a shell command with bash -c in the working directory. stdin is empty; stdout "
                   "and stderr are merged. The result ends with the exit status; only exit status 0 "
                   "counts as success. Very long output keeps its beginning and end. The command and "
                   "everything it started are killed on timeout; background jobs do not outlive it.",
    .schema =
      "{"
      "\"type\":\"object\","
      "\"properties\":{"
        "\"command\":{\"type\":\"string\",\"description\":\"The command line, run with bash -c in the working directory.\"},"
        "\"timeout_ms\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":600000,"
          "\"description\":\"Optional. Kill the command after this many milliseconds (default: the session's timeout, 120000 unless configured).\"}"
      "},"
      "\"required\":[\"command\"]"
      "}",
    .safety = PD_TOOL_MUTATING,
    /* A command can do anything; the evidence rules must assume it did. */
    .effects = PD_TOOL_EFFECTS_UNKNOWN,
    /* timeout_ms left out: 0, for the session's timeout */
    .args = {
      { "command", PD_TOOL_ARG_STRING, .required = TRUE },
      { "timeout_ms", PD_TOOL_ARG_INT, .min = 1, .max = PD_TOOL_MAX_SHELL_TIMEOUT_MS, .fallback = 0 },
    },
    .run = _pd_shell_run,
    .preview = _pd_shell_preview,
  },
  /* A question to a person: never an approval prompt of its own.  Always
   * registered, so that the tool list never changes with plan mode. */
  {
    .name = "exit_plan_mode",
    .description = "Leave plan mode by presenting your plan for review. Send the COMPLETE plan as markdown starting "
                   "with a # heading: goal, the changes you will make, how you will verify them. A person approves "
                   "it (plan mode ends after this step; carry out the plan) or asks you to keep planning with "
                   "feedback. Only available in plan mode.",
    .schema = "{\"type\":\"object\",\"properties\":{\"plan\":{\"type\":\"string\","
              "\"description\":\"The complete plan in markdown, starting with a # heading.\"}},"
              "\"required\":[\"plan\"]}",
    .safety = PD_TOOL_SAFE,
    .effects = PD_TOOL_EFFECTS_READ,
    .run = _pd_exit_plan_mode_run,
    .state_new = _pd_exit_plan_mode_state_new,
    .state_free = _pd_exit_plan_mode_state_free,
  },
  /* Changes engine-held state only, so it never prompts; the evidence
   * recorder skips plan calls anyway.  Its description and schema come
   * from its seed definition (pd-plan-tool.c). */
  {
    .name = "plan",
    .get_description = _pd_plan_get_description,
    .get_parameters = _pd_plan_get_parameters,
    .safety = PD_TOOL_SAFE,
    .effects = PD_TOOL_EFFECTS_READ,
    .run = _pd_plan_run,
    .state_new = g_object_ref,
    .state_free = g_object_unref,
    .needs_plan_store = TRUE,
  },
  { NULL }
};
