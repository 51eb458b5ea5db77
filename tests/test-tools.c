/* test-tools.c: the engine's tools at work, on real temporary
 * directories: the shell (exit status, output, environment and secrets,
 * timeouts, cancelling) and the file tools (read, write, edit, list, grep,
 * their caps and deadlines).  Where the tools may reach is in
 * test-tools-paths.c; both use pd-test-tools.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#define _GNU_SOURCE

#include "pd-test-tools.h"

/* shell */

static void
test_shell_exit_status (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdToolResult) ok = call (shell, f->context, "{\"command\":\"echo hello\"}");
  g_autoptr(PdToolResult) failed = call (shell, f->context, "{\"command\":\"echo oops; exit 3\"}");
  g_autoptr(PdToolResult) signaled = call (shell, f->context, "{\"command\":\"kill -TERM $$\"}");

  g_assert_true (ok->ok);
  g_assert_cmpint (ok->exit_status, ==, 0);
  g_assert_cmpstr (ok->content, ==, "hello\nexit status 0");

  g_assert_false (failed->ok);
  g_assert_cmpint (failed->exit_status, ==, 3);
  g_assert_cmpstr (failed->content, ==, "oops\nexit status 3");

  g_assert_false (signaled->ok);
  g_assert_cmpint (signaled->exit_status, ==, 128 + SIGTERM);
  g_assert_nonnull (strstr (signaled->content, "killed by signal 15"));
}

static void
test_shell_merged_output (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdToolResult) result =
    call (shell, f->context, "{\"command\":\"echo out; echo err >&2; echo out2\"}");
  g_autoptr(PdToolResult) quiet = call (shell, f->context, "{\"command\":\"true\"}");

  g_assert_true (result->ok);
  g_assert_cmpstr (result->content, ==, "out\nerr\nout2\nexit status 0");
  g_assert_cmpstr (quiet->content, ==, "(no output)\nexit status 0");
}

static void
test_shell_environment (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdToolResult) pwd = NULL;
  g_autoptr(PdToolResult) env = NULL;
  g_autoptr(PdToolResult) stdin_result = NULL;
  g_autofree char *expected = NULL;

  pd_tool_context_setenv (f->context, "PD_TEST_VALUE", "first");
  pd_tool_context_setenv (f->context, "PD_TEST_VALUE", "from-context");
  pd_tool_context_setenv (f->context, "PD_TEST_GONE", "x");
  pd_tool_context_setenv (f->context, "PD_TEST_GONE", NULL);

  pwd = call (shell, f->context, "{\"command\":\"pwd -P\"}");
  expected = g_strdup_printf ("%s\nexit status 0", pd_tool_context_get_working_dir (f->context));
  g_assert_cmpstr (pwd->content, ==, expected);

  env = call (shell, f->context, "{\"command\":\"echo \\\"$PD_TEST_VALUE:${PD_TEST_GONE-unset}\\\"\"}");
  g_assert_cmpstr (env->content, ==, "from-context:unset\nexit status 0");

  /* stdin is /dev/null: a command reading it ends at once (one reading
   * anything else would be killed by the timeout, and say so). */
  stdin_result = call (shell, f->context, "{\"command\":\"cat; echo done\",\"timeout_ms\":10000}");
  g_assert_cmpstr (stdin_result->content, ==, "done\nexit status 0");
}

static void
test_shell_output_cap (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdToolResult) result = NULL;

  pd_tool_context_set_output_cap (f->context, 2048);
  g_assert_cmpuint (pd_tool_context_get_output_cap (f->context), ==, 2048);

  result = call (shell, f->context, "{\"command\":\"seq 1 100000\"}");

  g_assert_true (result->ok);
  g_assert_true (result->truncated);
  g_assert_true (g_str_has_prefix (result->content, "1\n2\n3\n"));
  g_assert_true (g_str_has_suffix (result->content, "99999\n100000\nexit status 0"));
  g_assert_nonnull (strstr (result->content, "bytes of output omitted"));
  g_assert_cmpuint (strlen (result->content), <, 2048 + 200);
}

static void
test_shell_timeout_kills_group (Fixture       *f,
                                gconstpointer  data)
{
  g_autoptr(PdToolResult) result = NULL;

  /* The jobs would hold the output pipe for ten minutes, past the test's
   * timeout: the call returns only because the whole group is killed.  The
   * time limit leaves the shell room to start and say "started" on a busy
   * machine (400 ms did not, once, in an integration's suite: "(no
   * output)"). */
  result = call_jobs_gone (f, process_gone,
                           "{\"command\":\"echo started; sleep 600 & echo $! > bg.pid; sleep 600 & echo $! > fg.pid; "
                           "wait\",\"timeout_ms\":2000}", "bg.pid", "fg.pid", NULL);

  g_assert_false (result->ok);
  g_assert_cmpstr (result->content, ==, "started\nkilled: timeout after 2000 ms");
}

static void
test_shell_background_job_reaped (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(PdToolResult) result = NULL;

  /* bash exits at once, but its job keeps the output pipe open: the call
   * must not wait for the job, and the job must not outlive the call (a
   * call that waited would end at its timeout, killed, and not ok). */
  result = call_jobs_gone (f, process_gone,
                           "{\"command\":\"sleep 600 & echo $! > bg.pid; echo bye\",\"timeout_ms\":60000}",
                           "bg.pid", NULL);

  g_assert_true (result->ok);
  g_assert_cmpstr (result->content, ==, "bye\nexit status 0");
}

/* As an attacker would (att17 F1): jobs that hold no part of the output
 * pipe gave the call its end of output at once, and with bash gone nothing
 * killed the group: `(sleep 8; echo LATE > late.txt) </dev/null >/dev/null
 * 2>&1 &` wrote after the call said "exit status 0", after the run ended
 * too.  Every job of the group goes when bash has, pipe or no pipe. */
static void
test_shell_detached_jobs_reaped (Fixture       *f,
                                 gconstpointer  data)
{
  g_autoptr(PdToolResult) result =
    call_jobs_gone (f, process_gone,
                    "{\"command\":\"sleep 600 </dev/null >/dev/null 2>&1 & echo $! > a.pid; "
                    "nohup sleep 600 >/dev/null 2>&1 & echo $! > b.pid; disown; "
                    "(exec 1>&- 2>&-; sleep 600) & echo $! > c.pid; echo bye\",\"timeout_ms\":60000}",
                    "a.pid", "b.pid", "c.pid", NULL);

  g_assert_true (result->ok);
  g_assert_cmpstr (result->content, ==, "bye\nexit status 0");
}

/* As an attacker would (att18 N1): jobs that leave the process group
 * (bash's own job control with set -m, setsid, setsid -f, a fork with
 * setpgid) were out of reach of the group kill and lived on after the
 * call, the run and the CLI, as PID 1's children.  Each writes its pid and
 * sleeps; the call's reaper kills them all before the call returns. */
static void
test_shell_escaped_jobs_reaped (Fixture       *f,
                                gconstpointer  data)
{
  g_autoptr(PdToolResult) result = NULL;
  g_autofree char *script = fixture_path (f, "escape.sh");
  const char *text =
    "set -m\n"
    "(sleep 600) </dev/null >/dev/null 2>&1 & echo $! > a.pid\n"
    "set +m\n"
    "setsid -f sh -c 'echo $$ > b.pid; exec sleep 600' </dev/null >/dev/null 2>&1\n"
    "setsid sh -c 'echo $$ > c.pid; exec sleep 600' </dev/null >/dev/null 2>&1 &\n"
    "perl -e 'if (fork == 0) { setpgrp (0, 0); if (fork == 0) { open (F, \">d.pid\");"
    " print F $$; close F; exec \"sleep\", \"600\" } exit 0 }' </dev/null >/dev/null 2>&1\n"
    "sleep 1\n"
    "echo bye\n";

  g_assert_true (g_file_set_contents (script, text, -1, NULL));
  result = call_jobs_gone (f, process_gone, "{\"command\":\"bash escape.sh\",\"timeout_ms\":60000}",
                           "a.pid", "b.pid", "c.pid", "d.pid", NULL);

  g_assert_true (result->ok);
  g_assert_cmpstr (result->content, ==, "bye\nexit status 0");
}

/* As an attacker would (att18 N1): with set -m the foreground command is
 * in a group of its own too; the timeout said "killed" while it ran on. */
static void
test_shell_escaped_timeout_kills (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdToolResult) result = NULL;
  gint64 start = g_get_monotonic_time ();

  result = call (shell, f->context,
                 "{\"command\":\"set -m; setsid -f sh -c 'echo $$ > s.pid; exec sleep 600' "
                 "</dev/null >/dev/null 2>&1; sh -c 'echo $$ > t.pid; exec sleep 600'; echo after\","
                 "\"timeout_ms\":2000}");

  g_assert_false (result->ok);
  g_assert_cmpstr (result->content, ==, "(no output)\nkilled: timeout after 2000 ms");
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  g_assert_true (process_gone (read_pid (f, "s.pid")));
  g_assert_true (process_gone (read_pid (f, "t.pid")));
}

static void
test_shell_cancel (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonObject) args = NULL;
  g_autofree char *bg_path = fixture_path (f, "bg.pid");
  AsyncCall ac = { 0 };

  args = parse_args ("{\"command\":\"sleep 600 & echo $! > bg.pid; sleep 600\"}");
  pd_tool_call_async (shell, f->context, args, cancellable, on_call_done, &ac);

  /* Cancel only once the job is known to run, however long that takes. */
  while (!g_file_test (bg_path, G_FILE_TEST_EXISTS))
    g_usleep (10 * 1000);
  g_timeout_add (100, cancel_now, cancellable);

  /* The command would run for ten minutes: it ends because it is
   * cancelled. */
  wait_for (&ac);

  g_assert_null (ac.result);
  g_assert_error (ac.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&ac.error);
  g_assert_true (process_gone (read_pid (f, "bg.pid")));
}

static void
test_shell_async_result (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(JsonObject) args = parse_args ("{\"command\":\"echo async\"}");
  AsyncCall ac = { 0 };

  pd_tool_call_async (shell, f->context, args, NULL, on_call_done, &ac);
  wait_for (&ac);

  g_assert_no_error (ac.error);
  g_assert_nonnull (ac.result);
  g_assert_cmpstr (ac.result->content, ==, "async\nexit status 0");
  pd_tool_result_free (ac.result);
}

static void
test_shell_bad_args (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdToolResult) missing = call (shell, f->context, "{}");
  g_autoptr(PdToolResult) number = call (shell, f->context, "{\"command\":42}");
  g_autoptr(PdToolResult) empty = call (shell, f->context, "{\"command\":\"\"}");
  g_autoptr(PdToolResult) bad_timeout = call (shell, f->context,
                                              "{\"command\":\"true\",\"timeout_ms\":\"soon\"}");

  g_assert_false (missing->ok);
  g_assert_cmpstr (missing->content, ==, "shell: missing 'command' (a string)");
  g_assert_false (number->ok);
  g_assert_cmpstr (number->content, ==, "shell: 'command' must be a string, got a number");
  g_assert_false (empty->ok);
  g_assert_false (bad_timeout->ok);
  g_assert_nonnull (strstr (bad_timeout->content, "'timeout_ms' must be a whole number"));
}

/* The arguments a model may leave out, as it writes them: absent or null
 * reads as left out, a value of another type says what was needed. */
static void
test_args_optional (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdTool) edit_file = pd_edit_file_tool_new ();
  g_autoptr(PdTool) read_file = pd_read_file_tool_new ();
  g_autoptr(PdTool) grep = pd_grep_tool_new ();
  g_autofree char *file = fixture_path (f, "args.txt");
  g_autofree char *after = NULL;
  struct
  {
    PdTool     *tool;
    const char *args;
    gboolean    ok;
    const char *content;
  } cases[] = {
    { edit_file, "{\"path\":\"args.txt\",\"old_string\":\"one\",\"new_string\":\"two\",\"replace_all\":\"yes\"}",
      FALSE, "edit_file: 'replace_all' must be true or false, got a string" },
    { edit_file, "{\"path\":\"args.txt\",\"old_string\":\"one\",\"new_string\":\"two\",\"replace_all\":[true]}",
      FALSE, "edit_file: 'replace_all' must be true or false, got an array" },
    { grep, "{\"pattern\":\"one\",\"glob\":5}", FALSE, "grep: 'glob' must be a string, got a number" },
    { read_file, "{\"path\":null}", FALSE, "read_file: missing 'path' (a string)" },
    { read_file, "{\"path\":\"args.txt\",\"offset\":null}", TRUE, "one\n" },
    { grep, "{\"pattern\":\"one\",\"path\":null,\"glob\":null}", TRUE, "args.txt:1:one\n" },
    { edit_file, "{\"path\":\"args.txt\",\"old_string\":\"one\",\"new_string\":\"two\",\"replace_all\":null}",
      TRUE, "edited args.txt: replaced 1 occurrence" },
  };

  write_text (file, "one\n");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PdToolResult) result = call (cases[i].tool, f->context, cases[i].args);

      g_assert_cmpint (result->ok, ==, cases[i].ok);
      g_assert_cmpstr (result->content, ==, cases[i].content);
    }

  after = read_text (file);
  g_assert_cmpstr (after, ==, "two\n");
}

/* read_file */

static void
test_read_file (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_read_file_tool_new ();
  g_autofree char *path = fixture_path (f, "dir/notes.txt");
  g_autoptr(PdToolResult) whole = NULL;
  g_autoptr(PdToolResult) part = NULL;
  g_autoptr(PdToolResult) past = NULL;
  g_autoptr(PdToolResult) tail = NULL;
  g_autoptr(PdToolResult) whole_double = NULL;
  g_autoptr(PdToolResult) huge = NULL;
  g_autoptr(PdToolResult) fraction = NULL;

  write_text (path, "one\ntwo\nthree\nfour");

  whole = call (tool, f->context, "{\"path\":\"dir/notes.txt\"}");
  g_assert_true (whole->ok);
  g_assert_false (whole->truncated);
  g_assert_cmpstr (whole->content, ==, "one\ntwo\nthree\nfour");

  part = call (tool, f->context, "{\"path\":\"dir/notes.txt\",\"offset\":2,\"limit\":2}");
  g_assert_true (part->ok);
  g_assert_cmpstr (part->content, ==, "two\nthree\n[showed lines 2-3 of 4; continue with offset=4]");

  tail = call (tool, f->context, "{\"path\":\"./dir/../dir/notes.txt\",\"offset\":4}");
  g_assert_cmpstr (tail->content, ==, "four");

  /* Whole doubles are whole numbers; huge ones are held at the bound. */
  whole_double = call (tool, f->context, "{\"path\":\"dir/notes.txt\",\"offset\":2.0,\"limit\":1e300}");
  g_assert_true (whole_double->ok);
  g_assert_cmpstr (whole_double->content, ==, "two\nthree\nfour");
  huge = call (tool, f->context, "{\"path\":\"dir/notes.txt\",\"offset\":1e300}");
  g_assert_false (huge->ok);
  g_assert_nonnull (strstr (huge->content, "is past the end of 'dir/notes.txt'"));
  fraction = call (tool, f->context, "{\"path\":\"dir/notes.txt\",\"offset\":1.5}");
  g_assert_false (fraction->ok);
  g_assert_cmpstr (fraction->content, ==, "read_file: 'offset' must be a whole number, got 1.5");

  past = call (tool, f->context, "{\"path\":\"dir/notes.txt\",\"offset\":9}");
  g_assert_false (past->ok);
  g_assert_cmpstr (past->content, ==,
                   "read_file: offset 9 is past the end of 'dir/notes.txt', which has 4 line(s)");
}

static void
test_read_file_cap (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_read_file_tool_new ();
  g_autofree char *path = fixture_path (f, "big.txt");
  g_autofree char *long_line_path = fixture_path (f, "long.txt");
  g_autofree char *long_line = g_strnfill (5000, 'x');
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(PdToolResult) result = NULL;
  g_autoptr(PdToolResult) cut = NULL;

  for (guint i = 1; i <= 1000; i++)
    g_string_append_printf (text, "line %04u\n", i);   /* 10 bytes each */
  write_text (path, text->str);
  write_text (long_line_path, long_line);
  pd_tool_context_set_output_cap (f->context, 1024);

  result = call (tool, f->context, "{\"path\":\"big.txt\"}");
  g_assert_true (result->ok);
  g_assert_true (result->truncated);
  g_assert_true (g_str_has_prefix (result->content, "line 0001\n"));
  g_assert_nonnull (strstr (result->content, "line 0102\n[truncated at the output limit: "
                                             "showed lines 1-102 of 1000; continue with offset=103]"));

  cut = call (tool, f->context, "{\"path\":\"long.txt\"}");
  g_assert_true (cut->truncated);
  g_assert_nonnull (strstr (cut->content, "longer than the 1024-byte output limit"));
}

static void
test_read_file_errors (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_read_file_tool_new ();
  g_autofree char *bin = fixture_path (f, "blob.bin");
  g_autofree char *latin1 = fixture_path (f, "latin1.txt");
  g_autofree char *empty = fixture_path (f, "empty.txt");
  g_autoptr(PdToolResult) missing = NULL;
  g_autoptr(PdToolResult) binary = NULL;
  g_autoptr(PdToolResult) invalid = NULL;
  g_autoptr(PdToolResult) dir = NULL;
  g_autoptr(PdToolResult) nothing = NULL;
  g_autoptr(GError) error = NULL;
  static const char blob[] = { 'E', 'L', 'F', '\0', 1, 2, 3 };

  g_file_set_contents (bin, blob, sizeof blob, &error);
  g_assert_no_error (error);
  g_file_set_contents (latin1, "caf\xe9\n", -1, &error);
  g_assert_no_error (error);
  write_text (empty, "");

  missing = call (tool, f->context, "{\"path\":\"nope.txt\"}");
  g_assert_false (missing->ok);
  g_assert_cmpstr (missing->content, ==, "read_file: 'nope.txt' does not exist");

  binary = call (tool, f->context, "{\"path\":\"blob.bin\"}");
  g_assert_false (binary->ok);
  g_assert_nonnull (strstr (binary->content, "'blob.bin' is not a UTF-8 text file"));

  invalid = call (tool, f->context, "{\"path\":\"latin1.txt\"}");
  g_assert_false (invalid->ok);
  g_assert_nonnull (strstr (invalid->content, "not a UTF-8 text file"));

  dir = call (tool, f->context, "{\"path\":\".\"}");
  g_assert_false (dir->ok);
  g_assert_cmpstr (dir->content, ==, "read_file: '.' is a directory (use list_dir)");

  nothing = call (tool, f->context, "{\"path\":\"empty.txt\"}");
  g_assert_true (nothing->ok);
  g_assert_cmpstr (nothing->content, ==, "[empty file]");
}

/* write_file */

static void
test_write_file (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_write_file_tool_new ();
  g_autofree char *path = fixture_path (f, "a/b/c.txt");
  g_autofree char *text = NULL;
  g_autofree char *again = NULL;
  g_autoptr(PdToolResult) created = NULL;
  g_autoptr(PdToolResult) replaced = NULL;
  g_autoptr(PdToolResult) onto_dir = NULL;
  struct stat st;

  created = call (tool, f->context, "{\"path\":\"a/b/c.txt\",\"content\":\"hello\\n\"}");
  g_assert_true (created->ok);
  g_assert_cmpstr (created->content, ==, "created a/b/c.txt (6 bytes)");
  text = read_text (path);
  g_assert_cmpstr (text, ==, "hello\n");
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0644);

  /* An existing file keeps its permissions. */
  g_assert_cmpint (chmod (path, 0600), ==, 0);
  replaced = call (tool, f->context, "{\"path\":\"a/b/c.txt\",\"content\":\"bye\"}");
  g_assert_true (replaced->ok);
  g_assert_cmpstr (replaced->content, ==, "replaced a/b/c.txt (3 bytes)");
  again = read_text (path);
  g_assert_cmpstr (again, ==, "bye");
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  onto_dir = call (tool, f->context, "{\"path\":\"a/b\",\"content\":\"x\"}");
  g_assert_false (onto_dir->ok);
  g_assert_cmpstr (onto_dir->content, ==, "write_file: 'a/b' is a directory");
}

/* edit_file */

static void
test_edit_file (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_edit_file_tool_new ();
  g_autofree char *path = fixture_path (f, "src/main.c");
  g_autofree char *after_one = NULL;
  g_autofree char *after_all = NULL;
  g_autofree char *unchanged = NULL;
  g_autoptr(PdToolResult) once = NULL;
  g_autoptr(PdToolResult) none = NULL;
  g_autoptr(PdToolResult) ambiguous = NULL;
  g_autoptr(PdToolResult) all = NULL;
  g_autoptr(PdToolResult) same = NULL;
  g_autoptr(PdToolResult) empty = NULL;
  g_autoptr(PdToolResult) missing = NULL;

  write_text (path, "int a = 1;\nint b = 2;\nint c = 2;\n");

  once = call (tool, f->context, "{\"path\":\"src/main.c\",\"old_string\":\"a = 1\",\"new_string\":\"a = 10\"}");
  g_assert_true (once->ok);
  g_assert_cmpstr (once->content, ==, "edited src/main.c: replaced 1 occurrence");
  after_one = read_text (path);
  g_assert_cmpstr (after_one, ==, "int a = 10;\nint b = 2;\nint c = 2;\n");

  none = call (tool, f->context, "{\"path\":\"src/main.c\",\"old_string\":\"int d\",\"new_string\":\"x\"}");
  g_assert_false (none->ok);
  g_assert_true (g_str_has_prefix (none->content, "edit_file: 'old_string' was not found in 'src/main.c'"));

  ambiguous = call (tool, f->context, "{\"path\":\"src/main.c\",\"old_string\":\"= 2\",\"new_string\":\"= 3\"}");
  g_assert_false (ambiguous->ok);
  g_assert_true (g_str_has_prefix (ambiguous->content, "edit_file: 'old_string' occurs 2 times in 'src/main.c'"));
  unchanged = read_text (path);
  g_assert_cmpstr (unchanged, ==, after_one);

  all = call (tool, f->context, "{\"path\":\"src/main.c\",\"old_string\":\"= 2\",\"new_string\":\"= 3\",\"replace_all\":true}");
  g_assert_true (all->ok);
  g_assert_cmpstr (all->content, ==, "edited src/main.c: replaced 2 occurrences");
  after_all = read_text (path);
  g_assert_cmpstr (after_all, ==, "int a = 10;\nint b = 3;\nint c = 3;\n");

  same = call (tool, f->context, "{\"path\":\"src/main.c\",\"old_string\":\"int\",\"new_string\":\"int\"}");
  g_assert_false (same->ok);
  empty = call (tool, f->context, "{\"path\":\"src/main.c\",\"old_string\":\"\",\"new_string\":\"x\"}");
  g_assert_false (empty->ok);
  g_assert_nonnull (strstr (empty->content, "use write_file"));
  missing = call (tool, f->context, "{\"path\":\"src/none.c\",\"old_string\":\"a\",\"new_string\":\"b\"}");
  g_assert_false (missing->ok);
  g_assert_cmpstr (missing->content, ==, "edit_file: 'src/none.c' does not exist");
}

/* list_dir */

static void
test_list_dir (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_list_dir_tool_new ();
  g_autofree char *file = fixture_path (f, "b.txt");
  g_autofree char *sub = fixture_path (f, "sub/inner.txt");
  g_autofree char *link = fixture_path (f, "link");
  g_autofree char *empty_dir = fixture_path (f, "empty");
  g_autoptr(PdToolResult) root = NULL;
  g_autoptr(PdToolResult) inner = NULL;
  g_autoptr(PdToolResult) empty = NULL;
  g_autoptr(PdToolResult) not_dir = NULL;
  g_autoptr(PdToolResult) missing = NULL;

  write_text (file, "b");
  write_text (sub, "i");
  g_assert_cmpint (symlink ("b.txt", link), ==, 0);
  g_assert_cmpint (g_mkdir (empty_dir, 0755), ==, 0);

  root = call (tool, f->context, "{}");
  g_assert_true (root->ok);
  g_assert_cmpstr (root->content, ==, "b.txt\nempty/\nlink -> b.txt\nsub/\n");

  inner = call (tool, f->context, "{\"path\":\"sub\"}");
  g_assert_cmpstr (inner->content, ==, "inner.txt\n");

  empty = call (tool, f->context, "{\"path\":\"empty\"}");
  g_assert_true (empty->ok);
  g_assert_cmpstr (empty->content, ==, "[empty directory]");

  not_dir = call (tool, f->context, "{\"path\":\"b.txt\"}");
  g_assert_false (not_dir->ok);
  g_assert_cmpstr (not_dir->content, ==, "list_dir: 'b.txt' is not a directory (use read_file)");

  missing = call (tool, f->context, "{\"path\":\"gone\"}");
  g_assert_false (missing->ok);
  g_assert_cmpstr (missing->content, ==, "list_dir: 'gone' does not exist");
}

/* Found (tried as an attacker would): list_dir showed where each link
 * led, "dlink -> /tmp/…/outside", telling the model names outside the
 * folder that every refusal keeps from it.  A link says whether it stays
 * inside (its target then, relative to the working directory), and never
 * the text of one that leads out, or nowhere; allow_outside changes
 * nothing there.  Found again: a link to a missing name outside read
 * "missing or looping target", one to an existing name "out of the
 * working directory", so the model learned which names existed there; one
 * answer for both, in the listing and in the refusal of a path through
 * such a link. */
static void
test_list_dir_links (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_list_dir_tool_new ();
  g_autoptr(PdToolContext) open_context = pd_tool_context_copy (f->context);
  g_autofree char *inner = fixture_path (f, "sub/inner.txt");
  g_autofree char *secret = g_build_filename (f->outside, "secret.txt", NULL);
  g_autofree char *gone = g_build_filename (f->outside, "gone-name.txt", NULL);
  static const char expected[] =
    "dangling -> [a link out of the working directory, or to nothing]\n"
    "dlink -> [a link out of the working directory, or to nothing]\n"
    "flink -> [a link out of the working directory, or to nothing]\n"
    "here -> .\n"
    "inner.txt\n"
    "roundabout -> sub/inner.txt\n"
    "up -> sub/inner.txt\n";
  const char *links[][2] = {
    { "dlink", f->outside },
    { "flink", secret },
    { "dangling", gone },
    { "here", ".." },
    { "up", "../sub/inner.txt" },
    /* Inside, through the outside folder's name: that name is not shown. */
    { "roundabout", NULL },
  };
  g_autofree char *roundabout = NULL;

  write_text (inner, "i");
  write_text (secret, "s");
  roundabout = g_strdup_printf ("%s/../wd/sub/inner.txt", f->outside);
  links[5][1] = roundabout;
  for (guint i = 0; i < G_N_ELEMENTS (links); i++)
    {
      g_autofree char *rel = g_strdup_printf ("sub/%s", links[i][0]);
      g_autofree char *path = fixture_path (f, rel);

      g_assert_cmpint (symlink (links[i][1], path), ==, 0);
    }

  for (guint round = 0; round < 2; round++)
    {
      g_autoptr(PdToolResult) result = call (tool, round == 0 ? f->context : open_context, "{\"path\":\"sub\"}");

      g_assert_true (result->ok);
      g_assert_cmpstr (result->content, ==, expected);
      g_assert_null (strstr (result->content, f->root));
      g_assert_null (strstr (result->content, "outside/"));
      g_assert_null (strstr (result->content, "secret"));
      g_assert_null (strstr (result->content, "gone-name"));
      pd_tool_context_set_allow_outside (open_context, TRUE);
    }

  /* A path through a link out, refused alike whether its name outside
   * exists (flink) or not (dangling). */
  {
    g_autoptr(PdTool) reader = pd_read_file_tool_new ();
    g_autoptr(PdToolResult) existing = call (reader, f->context, "{\"path\":\"sub/flink\"}");
    g_autoptr(PdToolResult) missing = call (reader, f->context, "{\"path\":\"sub/dangling\"}");

    g_assert_false (existing->ok);
    g_assert_false (missing->ok);
    g_assert_nonnull (strstr (existing->content, "'sub/flink' is outside"));
    g_assert_nonnull (strstr (missing->content, "'sub/dangling' is outside"));
    g_assert_cmpstr (strstr (existing->content, "' is outside"), ==, strstr (missing->content, "' is outside"));
  }
}

/* Names as an attacker would write them (att15): "a\nb.txt" listed as
 * two entries, "a" and "b.txt", and a plain file named like a link with
 * the tool's own note looked like one. */
static void
test_list_dir_hostile_names (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_list_dir_tool_new ();
  const char *names[] = {
    "a\nb.txt", "tab\there", "esc\033[2J", "c1\302\233x",
    "x -> [a link out of the working directory, or to nothing]",
  };
  static const char expected[] =
    "a\\nb.txt\n"
    "c1\\u009bx\n"
    "esc\\x1b[2J\n"
    "tab\\there\n"
    "x -> [a link out of the working directory, or to nothing]  [\" -> \" is part of this name]\n";
  g_autofree char *dir = fixture_path (f, "names");
  g_autoptr(PdToolResult) result = NULL;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);

      write_text (path, "x");
    }
  result = call (tool, f->context, "{\"path\":\"names\"}");
  g_assert_true (result->ok);
  g_assert_cmpstr (result->content, ==, expected);
}

/* More names than one stretch of reading between list_dir's looks at the
 * deadline (4096): every one of them listed, in byte order, whatever order
 * the directory gives them in. */
static void
test_list_dir_many (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_list_dir_tool_new ();
  g_autofree char *dir = fixture_path (f, "many");
  g_autoptr(GString) expected = g_string_new (NULL);
  g_autoptr(PdToolResult) result = NULL;
  const guint n = 4100;

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  /* Made in reverse, so the directory's own order is not the answer. */
  for (guint i = n; i-- > 0; )
    {
      g_autofree char *name = g_strdup_printf ("many/f%05u", i);
      g_autofree char *path = fixture_path (f, name);

      write_text (path, "");
    }
  for (guint i = 0; i < n; i++)
    g_string_append_printf (expected, "f%05u\n", i);

  pd_tool_context_set_output_cap (f->context, 1024 * 1024);
  result = call (tool, f->context, "{\"path\":\"many\"}");
  g_assert_true (result->ok);
  g_assert_false (result->truncated);
  g_assert_cmpstr (result->content, ==, expected->str);
}

/* grep */

static void
test_grep (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_grep_tool_new ();
  g_autofree char *a = fixture_path (f, "src/a.c");
  g_autofree char *b = fixture_path (f, "src/deep/b.h");
  g_autofree char *git = fixture_path (f, ".git/config");
  g_autofree char *bin = fixture_path (f, "blob.bin");
  g_autofree char *link = fixture_path (f, "outside-link");
  g_autofree char *target = g_build_filename (f->outside, "secret.txt", NULL);
  g_autoptr(PdToolResult) all = NULL;
  g_autoptr(PdToolResult) globbed = NULL;
  g_autoptr(PdToolResult) one_file = NULL;
  g_autoptr(PdToolResult) nothing = NULL;
  g_autoptr(PdToolResult) invalid = NULL;
  g_autoptr(GError) error = NULL;
  static const char blob[] = { 'T', 'O', 'D', 'O', '\0', '\n' };

  write_text (a, "int main (void)\n{\n  /* TODO: argv */\n}\n");
  write_text (b, "#pragma once\n// TODO header\n");
  write_text (git, "TODO in git\n");
  g_file_set_contents (bin, blob, sizeof blob, &error);
  g_assert_no_error (error);
  g_assert_cmpint (symlink (target, link), ==, 0);

  all = call (tool, f->context, "{\"pattern\":\"TODO|secret\"}");
  g_assert_true (all->ok);
  g_assert_cmpstr (all->content, ==,
                   "src/a.c:3:  /* TODO: argv */\n"
                   "src/deep/b.h:2:// TODO header\n"
                   "[1 binary, unreadable or oversized file skipped]");

  globbed = call (tool, f->context, "{\"pattern\":\"TODO\",\"path\":\"src\",\"glob\":\"*.h\"}");
  g_assert_cmpstr (globbed->content, ==, "src/deep/b.h:2:// TODO header\n");

  one_file = call (tool, f->context, "{\"pattern\":\"^\\\\{\",\"path\":\"src/a.c\"}");
  g_assert_cmpstr (one_file->content, ==, "src/a.c:2:{\n");

  nothing = call (tool, f->context, "{\"pattern\":\"FIXME\",\"path\":\"src\"}");
  g_assert_true (nothing->ok);
  g_assert_cmpstr (nothing->content, ==, "no matches in 2 files");

  invalid = call (tool, f->context, "{\"pattern\":\"(unclosed\"}");
  g_assert_false (invalid->ok);
  g_assert_true (g_str_has_prefix (invalid->content, "grep: invalid pattern: "));
}

static void
test_grep_caps (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_grep_tool_new ();
  g_autofree char *path = fixture_path (f, "many.txt");
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(PdToolResult) result = NULL;
  g_auto(GStrv) lines = NULL;

  for (guint i = 0; i < 500; i++)
    g_string_append (text, "match\n");
  write_text (path, text->str);

  result = call (tool, f->context, "{\"pattern\":\"match\"}");
  g_assert_true (result->ok);
  g_assert_true (result->truncated);
  g_assert_true (g_str_has_suffix (result->content, "many.txt:200:match\n[truncated: stopped after 200 matches]\n"));
  lines = g_strsplit (result->content, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 202);
}
/* Long work: the run's deadline and cancellation reach into every tool. */

/* Lines of 20 "a" and a "b": ^(a|aa)+$ backtracks about 1 ms on each
 * (below the per-line limit), so 8 MiB of them take minutes. */
static void
write_slow_file (const char *path)
{
  g_autoptr(GString) text = g_string_sized_new (8 * 1024 * 1024 + 64);
  g_autoptr(GError) error = NULL;

  while (text->len < 8 * 1024 * 1024 - 32)
    g_string_append (text, "aaaaaaaaaaaaaaaaaaaab\n");
  g_file_set_contents (path, text->str, text->len, &error);
  g_assert_no_error (error);
}

static void
test_grep_backtracking_limit (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_grep_tool_new ();
  g_autofree char *path = fixture_path (f, "f.txt");
  g_autofree char *many = fixture_path (f, "many/m.txt");
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(PdToolResult) result = NULL;
  g_autoptr(PdToolResult) own_limit = NULL;
  g_autoptr(PdToolResult) utf = NULL;
  g_autoptr(PdToolResult) verb = NULL;
  g_autoptr(PdToolResult) stopped = NULL;
  /* 28 "a": about 3 000 000 steps, which PCRE2's own limit allows. */
  g_autofree char *long_a = g_strnfill (28, 'a');

  g_string_append_printf (text, "match one\n%sb\n%sb\n%sb\nmatch two\n", long_a, long_a, long_a);
  write_text (path, text->str);

  /* The lines that need too much backtracking are named, the rest is
   * searched, and the result is not a success: the search is incomplete. */
  result = call (tool, f->context, "{\"pattern\":\"^(a|aa)+$|match\",\"path\":\"f.txt\"}");
  g_assert_false (result->ok);
  g_assert_true (g_str_has_prefix (result->content, "f.txt:1:match one\nf.txt:5:match two\n"
                                   "[3 lines could not be searched: the pattern needs more than "
                                   "1000000 backtracking steps on them (f.txt:2, f.txt:3, f.txt:4). "));

  /* A pattern cannot lift the limit with its own setting. */
  own_limit = call (tool, f->context,
                    "{\"pattern\":\"(*LIMIT_MATCH=100000000)(*LIMIT_HEAP=1000000)^(a|aa)+$\",\"path\":\"f.txt\"}");
  g_assert_false (own_limit->ok);
  g_assert_nonnull (strstr (own_limit->content, "3 lines could not be searched"));

  /* Start-of-pattern settings stay usable, and a verb is not one. */
  utf = call (tool, f->context, "{\"pattern\":\"(*UTF)(*UCP)match t\\\\w+\",\"path\":\"f.txt\"}");
  g_assert_true (utf->ok);
  g_assert_cmpstr (utf->content, ==, "f.txt:5:match two\n");
  verb = call (tool, f->context, "{\"pattern\":\"(*FAIL)|two\",\"path\":\"f.txt\"}");
  g_assert_true (verb->ok);
  g_assert_cmpstr (verb->content, ==, "f.txt:5:match two\n");

  /* A file of such lines: the search gives up after 20 of them. */
  g_string_truncate (text, 0);
  for (guint i = 0; i < 100; i++)
    g_string_append_printf (text, "%sb\n", long_a);
  write_text (many, text->str);
  stopped = call (tool, f->context, "{\"pattern\":\"^(a|aa)+$\",\"path\":\"many\"}");
  g_assert_false (stopped->ok);
  g_assert_true (g_str_has_prefix (stopped->content, "[stopped: 20 lines could not be searched: "
                                   "the pattern needs more than 1000000 backtracking steps on them "
                                   "(many/m.txt:1, many/m.txt:2, many/m.txt:3, …)."));
}

static void
test_grep_deadline (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_grep_tool_new ();
  g_autoptr(PdToolContext) context = pd_tool_context_copy (f->context);
  g_autofree char *path = fixture_path (f, "slow.txt");
  g_autoptr(PdToolResult) result = NULL;
  g_autoptr(PdToolResult) late = NULL;

  write_slow_file (path);

  pd_tool_context_set_deadline (context, g_get_monotonic_time () + 300 * 1000);
  g_assert_cmpint (pd_tool_context_get_deadline (f->context), ==, 0);
  result = call (tool, context, "{\"pattern\":\"^(a|aa)+$\",\"path\":\"slow.txt\"}");
  g_assert_false (result->ok);
  g_assert_true (g_str_has_prefix (result->content, "[stopped: the run's time budget ran out after "));
  g_assert_true (g_str_has_suffix (result->content, " in 1 file; the search is incomplete]\n"));

  /* Once the time is out, no tool starts. */
  late = call (tool, context, "{\"pattern\":\"b\",\"path\":\"slow.txt\"}");
  g_assert_false (late->ok);
  g_assert_cmpstr (late->content, ==, "grep: not run: the run's time budget ran out");
}

static gboolean
cancel_when_started (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static void
test_grep_cancel (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_grep_tool_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonObject) args = parse_args ("{\"pattern\":\"^(a|aa)+$\",\"path\":\"slow.txt\"}");
  g_autofree char *path = fixture_path (f, "slow.txt");
  AsyncCall ac = { 0 };

  write_slow_file (path);

  /* Cancelled in the middle of one large file: it stops there, well
   * within wait_for()'s bound (the whole file takes minutes). */
  pd_tool_call_async (tool, f->context, args, cancellable, on_call_done, &ac);
  g_timeout_add (200, cancel_when_started, cancellable);
  wait_for (&ac);

  g_assert_null (ac.result);
  g_assert_error (ac.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&ac.error);
}

/* Found (tried as an attacker would): grep read all the names of a
 * directory before it looked at the time or the cancellable once, so a
 * directory of millions of names ran past the run's time limit and a
 * cancel.  It looks every 4096 names, as list_dir does.  The run's time
 * runs out here as the call starts: the tool's own call is made, past
 * the gate of pd_tool_call() that keeps a call from starting after it. */
static void
test_grep_deadline_reading_names (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_grep_tool_new ();
  g_autoptr(PdToolContext) context = pd_tool_context_copy (f->context);
  g_autoptr(JsonObject) args = parse_args ("{\"pattern\":\"x\",\"path\":\"big\"}");
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *dir = fixture_path (f, "big");
  g_autoptr(PdToolResult) result = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  for (guint i = 0; i < 3 * 4096; i++)
    {
      g_autofree char *name = g_strdup_printf ("big/f%05u", i);
      g_autofree char *path = fixture_path (f, name);

      write_text (path, "x\n");
    }

  pd_tool_context_set_deadline (context, g_get_monotonic_time ());
  result = PD_TOOL_GET_IFACE (tool)->call (tool, context, args, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_assert_false (result->ok);
  g_assert_cmpstr (result->content, ==,
                   "[stopped: the run's time budget ran out after 0 lines in 0 files, while reading "
                   "the names in 'big'; the search is incomplete]\n");
  g_clear_pointer (&result, pd_tool_result_free);

  /* Cancelled: the error, no result, from the reading as well. */
  g_cancellable_cancel (cancellable);
  result = PD_TOOL_GET_IFACE (tool)->call (tool, f->context, args, cancellable, &error);
  g_assert_null (result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_shell_deadline (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdToolContext) context = pd_tool_context_copy (f->context);
  g_autoptr(PdToolResult) result = NULL;
  g_autoptr(PdToolResult) late = NULL;
  g_autofree char *late_path = fixture_path (f, "late.txt");

  pd_tool_context_set_deadline (context, g_get_monotonic_time () + 300 * 1000);
  result = call (shell, context, "{\"command\":\"echo started; sleep 30 & echo $! > bg.pid; wait\"}");
  g_assert_false (result->ok);
  g_assert_true (g_str_has_prefix (result->content, "started\nkilled: the run's time budget ran out after "));
  g_assert_true (process_gone (read_pid (f, "bg.pid")));

  late = call (shell, context, "{\"command\":\"echo too late > late.txt\"}");
  g_assert_cmpstr (late->content, ==, "shell: not run: the run's time budget ran out");
  g_assert_false (g_file_test (late_path, G_FILE_TEST_EXISTS));
}

static void
test_edit_file_replace_all_large (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(PdTool) tool = pd_edit_file_tool_new ();
  g_autofree char *path = fixture_path (f, "big.txt");
  /* The same size in every build: the search is linear under the
   * sanitizers and valgrind too. */
  const gsize size = 4 * 1024 * 1024;
  g_autofree char *a = g_strnfill (size, 'a');
  g_autofree char *b = g_strnfill (size, 'b');
  g_autofree char *expected = g_strdup_printf ("edited big.txt: replaced %" G_GSIZE_FORMAT " occurrences", size);
  g_autofree char *after = NULL;
  g_autoptr(PdToolResult) result = NULL;

  /* Four million replacements in one call: linear work, not one move of
   * the rest of the file per replacement. */
  write_text (path, a);
  result = call (tool, f->context, "{\"path\":\"big.txt\",\"old_string\":\"a\",\"new_string\":\"b\",\"replace_all\":true}");
  g_assert_true (result->ok);
  g_assert_cmpstr (result->content, ==, expected);
  after = read_text (path);
  g_assert_true (strcmp (after, b) == 0);
}

/* Occurrences at every distance around the edges of the windows the search
 * goes through (1 KiB after each occurrence, then 2, 4 KiB…), so some straddle
 * an edge: each is found once, in order.  "aab" in runs of "a": every run
 * is a near miss until its end. */
static void
test_edit_file_replace_all_spread (Fixture       *f,
                                   gconstpointer  data)
{
  static const struct { guint from, to; } distances[] = {
    { 0, 8 }, { 1000, 1100 }, { 3040, 3100 }, { 7140, 7200 }, { 15320, 15380 },
  };
  g_autoptr(PdTool) tool = pd_edit_file_tool_new ();
  g_autofree char *path = fixture_path (f, "spread.txt");
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) expected = g_string_new (NULL);
  g_autofree char *message = NULL;
  g_autofree char *after = NULL;
  g_autoptr(PdToolResult) result = NULL;
  guint n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (distances); i++)
    for (guint d = distances[i].from; d <= distances[i].to; d++, n++)
      {
        for (guint k = 0; k < d; k++)
          {
            g_string_append_c (text, 'a');
            g_string_append_c (expected, 'a');
          }
        g_string_append (text, "aab");
        g_string_append (expected, "<X>");
      }
  g_string_append (text, "aa");
  g_string_append (expected, "aa");

  write_text (path, text->str);
  result = call (tool, f->context, "{\"path\":\"spread.txt\",\"old_string\":\"aab\",\"new_string\":\"<X>\",\"replace_all\":true}");
  g_assert_true (result->ok);
  message = g_strdup_printf ("edited spread.txt: replaced %u occurrences", n);
  g_assert_cmpstr (result->content, ==, message);
  after = read_text (path);
  g_assert_true (strcmp (after, expected->str) == 0);
}

static void
test_shell_secrets_hidden (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdToolResult) env = NULL;
  g_autoptr(PdToolResult) direct = NULL;

  /* main() put the secrets into this process's environment. */
  pd_tool_context_hide_env (f->context, "MY_PROFILE_KEY");
  /* An addition cannot bring a hidden variable back. */
  pd_tool_context_setenv (f->context, "OPENAI_API_KEY", "pd-secret-sentinel");

  env = call (shell, f->context, "{\"command\":\"env; cat /proc/self/environ | tr '\\\\0' '\\\\n'\"}");
  direct = call (shell, f->context, "{\"command\":\"echo \\\"[$OPENAI_API_KEY][$MY_PROFILE_KEY]\\\"\"}");

  for (guint i = 0; i < G_N_ELEMENTS (secret_names); i++)
    g_assert_true (pd_tool_context_env_is_hidden (f->context, secret_names[i]));

  g_assert_true (env->ok);
  g_assert_nonnull (strstr (env->content, "PD_TEST_VISIBLE=pd-visible-sentinel"));
  g_assert_nonnull (strstr (env->content, "DATABASE_URL=postgres://app:pd-visible-sentinel@"));
  g_assert_null (strstr (env->content, "pd-secret-sentinel"));
  g_assert_cmpstr (direct->content, ==, "[][]\nexit status 0");
  g_assert_false (pd_tool_context_env_is_hidden (f->context, "PATH"));
  g_assert_false (pd_tool_context_env_is_hidden (f->context, "PLANDECK_PLANNING"));
}

int
main (int   argc,
      char *argv[])
{
  pd_test_tools_init (&argc, &argv);

  ADD ("/pd/tools/shell/exit-status", test_shell_exit_status);
  ADD ("/pd/tools/shell/merged-output", test_shell_merged_output);
  ADD ("/pd/tools/shell/environment", test_shell_environment);
  ADD ("/pd/tools/shell/output-cap", test_shell_output_cap);
  ADD ("/pd/tools/shell/timeout-kills-group", test_shell_timeout_kills_group);
  ADD ("/pd/tools/shell/background-job-reaped", test_shell_background_job_reaped);
  ADD ("/pd/tools/shell/detached-jobs-reaped", test_shell_detached_jobs_reaped);
  ADD ("/pd/tools/shell/escaped-jobs-reaped", test_shell_escaped_jobs_reaped);
  ADD ("/pd/tools/shell/escaped-timeout-kills", test_shell_escaped_timeout_kills);
  ADD ("/pd/tools/shell/cancel", test_shell_cancel);
  ADD ("/pd/tools/shell/async", test_shell_async_result);
  ADD ("/pd/tools/shell/bad-args", test_shell_bad_args);
  ADD ("/pd/tools/shell/deadline", test_shell_deadline);
  ADD ("/pd/tools/shell/secrets-hidden", test_shell_secrets_hidden);
  ADD ("/pd/tools/args/optional", test_args_optional);
  ADD ("/pd/tools/read-file/basic", test_read_file);
  ADD ("/pd/tools/read-file/cap", test_read_file_cap);
  ADD ("/pd/tools/read-file/errors", test_read_file_errors);
  ADD ("/pd/tools/write-file/basic", test_write_file);
  ADD ("/pd/tools/edit-file/basic", test_edit_file);
  ADD ("/pd/tools/edit-file/replace-all-large", test_edit_file_replace_all_large);
  ADD ("/pd/tools/edit-file/replace-all-spread", test_edit_file_replace_all_spread);
  ADD ("/pd/tools/list-dir/basic", test_list_dir);
  ADD ("/pd/tools/list-dir/hostile-names", test_list_dir_hostile_names);
  ADD ("/pd/tools/list-dir/many", test_list_dir_many);
  ADD ("/pd/tools/list-dir/links", test_list_dir_links);
  ADD ("/pd/tools/grep/basic", test_grep);
  ADD ("/pd/tools/grep/caps", test_grep_caps);
  ADD ("/pd/tools/grep/backtracking-limit", test_grep_backtracking_limit);
  ADD ("/pd/tools/grep/deadline", test_grep_deadline);
  ADD ("/pd/tools/grep/cancel", test_grep_cancel);
  ADD ("/pd/tools/grep/deadline-reading-names", test_grep_deadline_reading_names);

  return g_test_run ();
}
