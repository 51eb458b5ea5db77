/* test-redact-attack-util.h: the attack tests' harness, shared by
 * test-redact-attack.c and test-redact-attack-runs.c: a command tried as
 * text, inside a tool call's JSON text and as a JSON document's string
 * value, and bash's reading of its signs outside quotes compared.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <json-glib/json-glib.h>

#include "pd-redact.h"
#include "test-redact-util.h"
#include "test-redact-bash-util.h"

/* @command as a tool call's arguments: the JSON text {"command":"…"}. */
static inline char *
command_as_json (const char *command)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) doc = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "command");
  json_builder_add_string_value (builder, command);
  json_builder_end_object (builder);
  doc = json_builder_get_root (builder);
  return json_to_string (doc, FALSE);
}

/* @command kept whole: as text, inside a tool call's JSON text, and as a
 * JSON document's string value (a command that is JSON text already is
 * tried as text). */
static inline void
assert_command_kept (const char *command)
{
  g_autoptr(JsonNode) back = NULL;
  g_autofree char *json = NULL;
  g_autofree char *as_json = NULL;
  g_autofree char *as_text = NULL;

  assert_redacted (command, command, 0);
  if (command[0] == '{')
    return;  /* JSON text already: its own case */

  json = command_as_json (command);
  as_text = pd_redact (json, NULL);
  g_assert_cmpstr (as_text, ==, json);
  as_json = pd_redact_json (json, NULL);
  back = json_from_string (as_json, NULL);
  g_assert_nonnull (back);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (back), "command"), ==, command);
}

/* Each of @commands kept whole, in each reading (assert_command_kept()). */
static inline void
assert_commands_kept (const char * const *commands,
                      gsize               n_commands)
{
  for (gsize i = 0; i < n_commands; i++)
    assert_command_kept (commands[i]);
}

/* The signs that end or join a command that bash reads outside quotes in
 * @command: ; & | < > and line breaks in '…' "…" and $'…' are text, as
 * are escaped ones and those in a comment (# where a word starts). */
static inline char *
unquoted_signs (const char *command)
{
  GString *signs = g_string_new (NULL);
  char quote = 0;  /* 0, ' " or $ (in $'…') */

  for (const char *p = command; *p; p++)
    {
      if (*p == '\\' && quote != '\'' && p[1] != '\0')
        p++;
      else if (quote == 0 && *p == '$' && p[1] == '\'')
        quote = '$', p++;
      else if (quote == 0 && (*p == '\'' || *p == '"'))
        quote = *p;
      else if ((quote == '\'' || quote == '$') && *p == '\'')
        quote = 0;
      else if (quote == '"' && *p == '"')
        quote = 0;
      else if (quote == 0 && *p == '#' && (p == command || strchr (" \t\n;&|()<>", p[-1]) != NULL))
        {
          /* A comment: to the line's end, the line break read. */
          while (p[1] != '\0' && p[1] != '\n')
            p++;
        }
      else if (quote == 0 && strchr (";&|<>\n", *p) != NULL)
        g_string_append_c (signs, *p);
    }
  return g_string_free (signs, FALSE);
}

/* A command tried as an attacker would: @secret (NULL: none) gone, each
 * of @shown (NULL-ended) still there. */
typedef struct
{
  const char *command;
  const char *secret;
  const char *shown[3];
} AttackCase;

/* Each case redacted as text, inside a tool call's JSON text and as a
 * JSON document's string value: its secret gone and its shown words there
 * in each reading, the JSON still valid, and bash reading the same signs
 * outside quotes as in the command (a mask never takes a quote, a
 * backslash or a $ that changes the quoting of what follows), and real
 * bash running every command of it in its masked text too
 * (test-redact-bash-util.h: the model of bash above missed $'\c'). */
static inline void
check_attacks (const AttackCase *cases,
               gsize             n_cases)
{
  static const char * const names[] = { "as text", "in JSON text", "in a JSON document" };

  for (gsize c = 0; c < n_cases; c++)
    {
      const char *command = cases[c].command;
      g_autofree char *json = command_as_json (command);
      g_autofree char *signs = unquoted_signs (command);
      char *out[3] = { NULL, NULL, NULL };

      out[0] = pd_redact (command, NULL);
      out[1] = pd_redact (json, NULL);
      out[2] = pd_redact_json (json, NULL);
      for (guint i = 0; i < G_N_ELEMENTS (out); i++)
        {
          g_autoptr(JsonNode) back = NULL;
          g_autofree char *got_signs = NULL;
          const char *got = out[i];

          if (i > 0)
            {
              back = json_from_string (out[i], NULL);
              g_assert_nonnull (back);
              got = json_object_get_string_member (json_node_get_object (back), "command");
            }
          if (cases[c].secret != NULL && strstr (got, cases[c].secret) != NULL)
            g_error ("%s %s became %s: \"%s\" stored", command, names[i], got, cases[c].secret);
          for (guint k = 0; k < G_N_ELEMENTS (cases[c].shown) && cases[c].shown[k] != NULL; k++)
            if (strstr (got, cases[c].shown[k]) == NULL)
              g_error ("%s %s became %s: \"%s\" hidden", command, names[i], got, cases[c].shown[k]);
          got_signs = unquoted_signs (got);
          if (g_strcmp0 (got_signs, signs) != 0)
            g_error ("%s %s became %s: bash reads \"%s\" outside quotes, not \"%s\"",
                     command, names[i], got, got_signs, signs);
        }
      for (guint i = 0; i < G_N_ELEMENTS (out); i++)
        g_free (out[i]);
    }
}

static inline void
assert_attacks (const AttackCase *cases,
                gsize             n_cases)
{
  g_autoptr(GPtrArray) commands = g_ptr_array_new ();

  check_attacks (cases, n_cases);
  for (gsize c = 0; c < n_cases; c++)
    g_ptr_array_add (commands, (gpointer) cases[c].command);
  assert_bash_runs_in_masked_all ((const char * const *) commands->pdata, commands->len);
}

/* One row of a round's table of spellings, checked by assert_rows():
 *  - ROW_MASKED: redacted as @expected, one redaction, @secret gone; and as
 *    an attack (assert_attacks()): gone in JSON text and a JSON value too,
 *    bash reading the same signs outside quotes;
 *  - ROW_MASKED_SOME: the same, one redaction or more;
 *  - ROW_MASKED_TEXT: redacted as @expected, one redaction, as text only;
 *  - ROW_ATTACK: an attack: @secret (nullable) gone and each of @shown
 *    still there in each reading, bash's signs the same (HELD: masked
 *    already, nothing to show; HIDE_NOTHING: what must stay in sight);
 *  - ROW_KEPT: kept whole in each reading (assert_command_kept()).
 * Every row, whatever its kind, is run by bash as written and masked. */
typedef enum
{
  ROW_MASKED,
  ROW_MASKED_SOME,
  ROW_MASKED_TEXT,
  ROW_ATTACK,
  ROW_KEPT,
} RowKind;

typedef struct
{
  RowKind     kind;
  const char *input;
  const char *expected;
  const char *secret;
  const char *shown[3];
} RedactRow;

#define MASKED(in, out, secret) { ROW_MASKED, (in), (out), (secret), { NULL } }
#define MASKED_SOME(in, out, secret) { ROW_MASKED_SOME, (in), (out), (secret), { NULL } }
#define MASKED_TEXT(in, out, secret) { ROW_MASKED_TEXT, (in), (out), (secret), { NULL } }
#define HELD(in, secret) { ROW_ATTACK, (in), NULL, (secret), { NULL } }
#define HIDE_NOTHING(in, secret, ...) { ROW_ATTACK, (in), NULL, (secret), { __VA_ARGS__ } }
#define KEPT(in) { ROW_KEPT, (in), NULL, NULL, { NULL } }

/* Each row checked as its kind says, and run by real bash: every command
 * the row runs, its masked text runs too (test-redact-bash-util.h). */
static inline void
assert_rows (const RedactRow *rows,
             gsize            n_rows)
{
  for (gsize i = 0; i < n_rows; i++)
    {
      const RedactRow *row = &rows[i];
      AttackCase attack = { row->input, row->secret, { row->shown[0], row->shown[1], row->shown[2] } };
      RedactCase one = { row->input, row->expected, row->secret };

      switch (row->kind)
        {
        case ROW_MASKED:
        case ROW_MASKED_SOME:
          assert_cases (&one, 1, row->kind == ROW_MASKED);
          check_attacks (&attack, 1);
          break;
        case ROW_MASKED_TEXT:
          assert_cases (&one, 1, TRUE);
          break;
        case ROW_ATTACK:
          check_attacks (&attack, 1);
          break;
        case ROW_KEPT:
          assert_command_kept (row->input);
          break;
        default:
          g_assert_not_reached ();
        }
    }
  {
    g_autoptr(GPtrArray) inputs = g_ptr_array_new ();

    for (gsize i = 0; i < n_rows; i++)
      g_ptr_array_add (inputs, (gpointer) rows[i].input);
    assert_bash_runs_in_masked_all ((const char * const *) inputs->pdata, inputs->len);
  }
}
