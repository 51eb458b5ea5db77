/* test-look-alike-quoted.c: look-alikes by their place in the shell
 * word — typography in quoted prose reads as it is, signs the shell
 * reads by place are escaped — and what the question says of each kind.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-approver.h"
#include "pd-remote-run.h"
#include "pd-safe-text.h"
#include "pd-shell-tool.h"
#include "pd-test-look-alike.h"
#include "pd-test-tools.h"

/* Finding (sec27 item 1, tried as a new user would): prose in quotes was
 * escaped and asked with controls (no Always): German `„Hallo Welt“,
 * sagte er.`, English `It’s “fine” – really … 5 km` with a NBSP, a
 * Chinese message's `…`, `東京 Tokyo １２３`, `ﬁle`.  In quoted prose (a
 * text of several words, or of Han or kana, with no ; & | ` $ < >) such
 * typography reads as it is now; where the shell reads it, it does not. */
static void
test_quoted_prose (void)
{
  static const LookAlikeCase cases[] = {
    { "git commit -m \\\"\\u201eHallo Welt\\u201c, sagte er.\\\"",
      "git commit -m \"\u201eHallo Welt\u201c, sagte er.\"", FALSE },
    { "echo '\\u201eHallo Welt\\u201c, sagte er.'", "echo '\u201eHallo Welt\u201c, sagte er.'", FALSE },
    { "git commit -m \\\"It\\u2019s \\u201cfine\\u201d \\u2013 really \\u2026 5\\u00a0km\\\"",
      "git commit -m \"It\u2019s \u201cfine\u201d \u2013 really \u2026 5\u00a0km\"", FALSE },
    /* one ’ alone: nothing follows that it could open */
    { "git commit -m 'It\\u2019s \\u201cfine\\u201d \\u2013 really \\u2026 5\\u00a0km'",
      "git commit -m 'It\u2019s \u201cfine\u201d \u2013 really \u2026 5\u00a0km'", FALSE },
    { "git commit -m '\\u4fee\\u590d\\uff1a\\u2026\\u5d29\\u6e83\\uff08#12\\uff09'",
      "git commit -m '\u4fee\u590d\uff1a\u2026\u5d29\u6e83\uff08#12\uff09'", FALSE },
    { "echo '\\u30b3\\u30fc\\u30d2\\u30fc\\uff08\\u30db\\u30c3\\u30c8\\uff09\\uff01'",
      "echo '\u30b3\u30fc\u30d2\u30fc\uff08\u30db\u30c3\u30c8\uff09\uff01'", FALSE },
    { "echo '\\u6771\\u4eac Tokyo \\uff11\\uff12\\uff13'", "echo '\u6771\u4eac Tokyo \uff11\uff12\uff13'", FALSE },
    { "echo \\\"the \\ufb01le is here\\\"", "echo \"the \ufb01le is here\"", FALSE },
    /* a message of several lines: its quotes go on */
    { "git commit -m \\\"Title\\n\\nIt\\u2019s \\u201cfine\\u201d\\\"",
      "git commit -m \"Title\n\nIt\u2019s \u201cfine\u201d\"", FALSE },
    /* Japanese and Chinese words of ノ, ー and 一 */
    { "echo '\\u30b3\\u30fc\\u30d2\\u30fc\\u30ce\\u30fc\\u30c8 \\u4e00\\u4e2a'",
      "echo '\u30b3\u30fc\u30d2\u30fc\u30ce\u30fc\u30c8 \u4e00\u4e2a'", FALSE },
    { "echo '\\u5b8c\\u4e86\\u3002OK'", "echo '\u5b8c\u4e86\u3002OK'", FALSE },
    { "echo '\\u6771\\u4eac\\u3000\\u5927\\u962a'", "echo '\u6771\u4eac\u3000\u5927\u962a'", FALSE },
  };

  assert_look_alike (cases, G_N_ELEMENTS (cases));
}

/* The same typography where the shell reads it stays escaped: outside
 * quotes, in a quoted word that is a path, a URL or an option, after an
 * operator (`sh -c` runs it), a # or a dash that starts a word, and a
 * closing quote out of pairs with another such quote after it (tried as
 * an attacker would). */
static void
test_quoted_held (void)
{
  static const LookAlikeCase cases[] = {
    { "cat \\ufb01le.txt", "cat \\ufb01le.txt", TRUE },
    { "cd build\\u3000; rm x", "cd build\\u3000; rm x", TRUE },
    { "echo \\u201cfine\\u201d", "echo \\u201cfine\\u201d", TRUE },
    { "echo \\uff11\\uff12\\uff13", "echo \\uff11\\uff12\\uff13", TRUE },
    { "rm \\\"\\u2010rf\\\" x", "rm \"\\u2010rf\" x", TRUE },
    { "curl \\\"https://\\uff45vil.com/a b\\\"", "curl \"https://\\uff45vil.com/a b\"", TRUE },
    { "sh -c \\\"echo \\u201chi; rm -rf ~\\u201d\\\"", "sh -c \"echo \\u201chi; rm -rf ~\\u201d\"", TRUE },
    { "sh -c \\\"rm -rf /tmp/x \\uff03 ~\\\"", "sh -c \"rm -rf /tmp/x \\uff03 ~\"", TRUE },
    { "sh -c \\\"ls \\u2010la now\\\"", "sh -c \"ls \\u2010la now\"", TRUE },
    { "echo 'it\\u2019s ok' ; rm -rf ~ ; echo 'x\\u2019y z'",
      "echo 'it\\u2019s ok' ; rm -rf ~ ; echo 'x\u2019y z'", TRUE },
    { "echo \\\"a \\u201dok\\\" ; rm -rf ~ ; echo \\\"b\\\"",
      "echo \"a \\u201dok\" ; rm -rf ~ ; echo \"b\"", TRUE },
    { "echo \\\"a b\\u2044c\\\"", "echo \"a b\\u2044c\"", TRUE },
    { "echo \\\"go to evil\\uff0ecom now\\\"", "echo \"go to evil\\uff0ecom now\"", TRUE },
    /* what a shell runs is no prose: sh -c splits “a src b” and removes src */
    { "sh -c \\\"rm -rf \\u201ca src b\\u201d\\\"", "sh -c \"rm -rf \\u201ca src b\\u201d\"", TRUE },
    { "bash -lc 'rm -rf \\u201ca src b\\u201d'", "bash -lc 'rm -rf \\u201ca src b\\u201d'", TRUE },
    { "ssh host 'rm -rf \\u201ca src b\\u201d'", "ssh host 'rm -rf \\u201ca src b\\u201d'", TRUE },
    { "eval \\\"rm \\u201ca b\\u201d\\\"", "eval \"rm \\u201ca b\\u201d\"", TRUE },
    /* a here-document's ' opens nothing: after a <<, no prose */
    { "cat <<EOF\\nit's\\nEOF\\nrm -rf \\u201ca src b\\u201d", "cat <<EOF\nit's\nEOF\nrm -rf \\u201ca src b\\u201d", TRUE },
    /* a prose message after a command that ran code: its own */
    { "sh -c 'make' ; git commit -m \\\"It\\u2019s \\u201cfine\\u201d\\\"",
      "sh -c 'make' ; git commit -m \"It\u2019s \u201cfine\u201d\"", FALSE },
    /* a ' in a comment opens nothing */
    { "true # it's\\necho \\u201cx\\u201d", "true # it's\necho \\u201cx\\u201d", TRUE },
    /* \\' outside quotes opens nothing */
    { "echo \\\\' \\u201cx y\\u201d", "echo \\' \\u201cx y\\u201d", TRUE },
  };

  assert_look_alike (cases, G_N_ELEMENTS (cases));
}

/* Finding (sec27 item 2, tried as an attacker would): signs a shell reads
 * by their place were shown raw, no controls: ノ (U+30CE) as a slash,
 * 一 (U+4E00) and ー (U+30FC) as an option's dash, 。 and ｡ as a host's
 * dot.  Beside no Han or kana letter they are escaped; so are the
 * hyphens, the minus sign, ⁄, ． and … (held by earlier rules). */
static void
test_place_signs (void)
{
  static const LookAlikeCase cases[] = {
    { "cat /tmp\\u30ceetc\\u30cepasswd", "cat /tmp\\u30ceetc\\u30cepasswd", TRUE },
    { "curl https://evil.com\\u30cex", "curl https://evil.com\\u30cex", TRUE },
    { "rm \\u30fcrf ~", "rm \\u30fcrf ~", TRUE },
    { "rm \\u30fc rf ~", "rm \\u30fc rf ~", TRUE },
    { "rm \\u4e00rf ~", "rm \\u4e00rf ~", TRUE },
    { "curl https://evil\\u3002com/x", "curl https://evil\\u3002com/x", TRUE },
    { "curl https://evil\\uff61com/x", "curl https://evil\\uff61com/x", TRUE },
    { "curl \\\"https://evil\\u3002com/x\\\"", "curl \"https://evil\\u3002com/x\"", TRUE },
    /* held before */
    { "curl https://evil\\uff0ecom/x", "curl https://evil\\uff0ecom/x", TRUE },
    { "cat /tmp\\u2044x", "cat /tmp\\u2044x", TRUE },
    { "rm \\u2010rf ~", "rm \\u2010rf ~", TRUE },
    { "rm \\u2011rf ~", "rm \\u2011rf ~", TRUE },
    { "rm \\u2212rf ~", "rm \\u2212rf ~", TRUE },
    { "cd \\u2026/x", "cd \\u2026/x", TRUE },
  };

  assert_look_alike (cases, G_N_ELEMENTS (cases));
}

/* Finding (att21 H1, HIGH, tried as an attacker would): two of those
 * signs side by side were each the other's Han or kana neighbour, so
 * `rm -rf victim ーーhelp` read as a harmless `--help`, unflagged, and
 * deleted the folder when approved. A sign beside a sign is out of place;
 * Japanese prose's long vowel (すごーーい) keeps its kana neighbours. */
static void
test_place_signs_doubled (void)
{
  static const LookAlikeCase cases[] = {
    { "rm -rf victim2 \\u30fc\\u30fchelp", "rm -rf victim2 \\u30fc\\u30fchelp", TRUE },
    { "rm -rf victim2 \\u4e00\\u4e00help", "rm -rf victim2 \\u4e00\\u4e00help", TRUE },
    { "rm \\u30fc\\u4e00rf x", "rm \\u30fc\\u4e00rf x", TRUE },
    { "sh -c \\\"git push \\u30fc\\u30fcforce\\\"", "sh -c \"git push \\u30fc\\u30fcforce\"", TRUE },
    { "cat \\u30ce\\u30ceetc\\u30ce\\u30cepasswd", "cat \\u30ce\\u30ceetc\\u30ce\\u30cepasswd", TRUE },
    { "curl https://evil\\u3002\\u3002com/x", "curl https://evil\\u3002\\u3002com/x", TRUE },
    /* prose: the long vowel doubled between kana */
    { "echo \\u3059\\u3054\\u30fc\\u30fc\\u3044", "echo \u3059\u3054\u30fc\u30fc\u3044", FALSE },
    { "git commit -m '\\u30b3\\u30fc\\u30d2\\u30fc'", "git commit -m '\u30b3\u30fc\u30d2\u30fc'", FALSE },
  };

  assert_look_alike (cases, G_N_ELEMENTS (cases));
}

/* Finding (sec27 item 3, tried as a new user would): every question with
 * escapes said "This command holds control characters, shown as escapes
 * such as \r, \x1b or \u202e", for a Cyrillic а, a curly quote and a
 * file name with a line break alike, and "command" for a file write.  The
 * kinds are told apart now, said in their words, "command" for a shell
 * call only, the same in the terminal prompt, the window's dialog
 * (pd_approver_controls_describe() both) and serve's question (its
 * description, and "controls_kinds" for a client to say it). */
static void
test_controls_kinds (void)
{
  static const struct
  {
    const char        *json;
    PdApproverControls kinds;
  } cases[] = {
    { "{\"command\":\"cat p\\u0430sswd.txt\"}", PD_APPROVER_CONTROLS_LETTERS },
    { "{\"command\":\"\\uff52\\uff4d -rf ~\"}", PD_APPROVER_CONTROLS_LETTERS },
    { "{\"command\":\"rm cafe\\u0301.txt\"}", PD_APPROVER_CONTROLS_LETTERS },
    { "{\"command\":\"echo \\u201c ; rm -rf ~ ; \\u201d\"}", PD_APPROVER_CONTROLS_SIGNS },
    { "{\"command\":\"rm \\u30fcrf ~\"}", PD_APPROVER_CONTROLS_SIGNS },
    { "{\"command\":\"echo ok \\uff03 ; rm -rf ~\"}", PD_APPROVER_CONTROLS_SIGNS },
    { "{\"command\":\"echo hi \\r\\nrm -f victim\"}", PD_APPROVER_CONTROLS_CONTROLS },
    { "{\"command\":\"cd build\\u00a0; rm x\"}", PD_APPROVER_CONTROLS_CONTROLS },
    { "{\"command\":\"curl https://\\u0440aypal.com/x \\u2044 \\u202e\"}",
      PD_APPROVER_CONTROLS_CONTROLS | PD_APPROVER_CONTROLS_LETTERS | PD_APPROVER_CONTROLS_SIGNS },
    { "{\"path\":\"docs/a.md\\n(a new file)\",\"content\":\"x\"}", PD_APPROVER_CONTROLS_NAME_BREAK },
    { "{\"path\":\"a.c\\tb.c\",\"old_string\":\"x\",\"new_string\":\"y\"}", PD_APPROVER_CONTROLS_NAME_TAB },
    { "{\"command\":\"git commit -m '\\u201eHallo Welt\\u201c, sagte er.'\"}", PD_APPROVER_CONTROLS_NONE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) args = parse_args (cases[i].json);

      g_test_message ("%s", cases[i].json);
      g_assert_cmpint (pd_approver_args_controls (args), ==, cases[i].kinds);
    }
}

static void
assert_says (char       *said,
             const char *says,
             const char *not_says)
{
  g_test_message ("%s", said);
  g_assert_nonnull (strstr (said, says));
  if (not_says != NULL)
    g_assert_null (strstr (said, not_says));
  g_free (said);
}

static void
test_controls_wording (void)
{
  g_autoptr(JsonObject) wire = NULL;
  g_autoptr(PdRemoteRun) remote = NULL;
  g_autoptr(PdRemoteRun) older = NULL;
  g_autofree char *question = NULL;

  assert_says (pd_approver_controls_describe ("shell", PD_APPROVER_CONTROLS_LETTERS),
               "This command holds letters from another alphabet that look like Latin ones, shown as "
               "escapes such as \\u0430.", "control characters");
  assert_says (pd_approver_controls_describe ("shell", PD_APPROVER_CONTROLS_SIGNS),
               "This command holds characters that look like shell syntax", "control characters");
  assert_says (pd_approver_controls_describe ("shell", PD_APPROVER_CONTROLS_CONTROLS),
               "This command holds control characters, shown as escapes such as \\r", NULL);
  assert_says (pd_approver_controls_describe ("write_file", PD_APPROVER_CONTROLS_NAME_BREAK),
               "The file name holds a line break, shown as \\n.", "command");
  assert_says (pd_approver_controls_describe ("write_file", PD_APPROVER_CONTROLS_NAME_BREAK),
               "The file name", "control characters");
  assert_says (pd_approver_controls_describe ("edit_file", PD_APPROVER_CONTROLS_NAME_TAB),
               "The file name holds a tab, shown as \\t.", "command");
  assert_says (pd_approver_controls_describe ("write_file", PD_APPROVER_CONTROLS_CONTROLS),
               "This call holds control characters", "command");
  assert_says (pd_approver_controls_describe ("shell", PD_APPROVER_CONTROLS_LETTERS | PD_APPROVER_CONTROLS_SIGNS),
               "look like Latin ones, shown as escapes such as \\u0430. This command holds characters "
               "that look like shell syntax", NULL);

  /* the terminal prompt */
  question = pd_approver_terminal_question ("shell", "shell: cat p\\u0430sswd.txt",
                                            "In /w:\n$ cat p\\u0430sswd.txt\n",
                                            PD_APPROVER_CONTROLS_LETTERS);
  assert_says (g_steal_pointer (&question), "\nThis command holds letters from another alphabet",
               "control characters");
  question = pd_approver_terminal_question ("write_file", "write_file: a\\nb (1 bytes)",
                                            "In /w:\na\\nb\n(a new file)\n+ x\n",
                                            PD_APPROVER_CONTROLS_NAME_BREAK);
  assert_says (g_steal_pointer (&question), "\nThe file name holds a line break, shown as \\n.",
               "command holds");

  /* serve's question as a window reads it: "controls_kinds" said in the
   * same words; an endpoint of an earlier version (no kinds) as before */
  wire = parse_args ("{\"id\":\"r1\",\"approval\":{\"id\":\"apr-1\",\"tool\":\"shell\","
                     "\"command\":\"echo \\\\u201c\",\"controls\":true,"
                     "\"controls_kinds\":[\"signs\",\"later\"]}}");
  g_assert_nonnull (wire);
  remote = pd_remote_run_new_from_json (wire);
  assert_says (pd_remote_run_approval_warning (remote), "This command holds characters that look like shell syntax",
               "control characters");
  g_clear_pointer (&wire, json_object_unref);
  wire = parse_args ("{\"id\":\"r1\",\"approval\":{\"id\":\"apr-1\",\"tool\":\"shell\","
                     "\"command\":\"x\",\"controls\":true}}");
  older = pd_remote_run_new_from_json (wire);
  assert_says (pd_remote_run_approval_warning (older), pd_approver_controls_text (), NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/approver/look-alike-quoted-prose", test_quoted_prose);
  g_test_add_func ("/pd/approver/look-alike-quoted-held", test_quoted_held);
  g_test_add_func ("/pd/approver/look-alike-place-signs", test_place_signs);
  g_test_add_func ("/pd/approver/look-alike-place-signs-doubled", test_place_signs_doubled);
  g_test_add_func ("/pd/approver/controls-kinds", test_controls_kinds);
  g_test_add_func ("/pd/approver/controls-wording", test_controls_wording);

  return g_test_run ();
}
