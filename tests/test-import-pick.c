/* test-import-pick.c: the readers' lean line path (pd_json_parse_picked()
 * with the members each reader reads) against whole trees: for every line
 * of every fixture, and the same lines broken in many ways, the picked
 * parse refuses exactly what the whole parse refuses and keeps exactly the
 * picked part of its tree, and the one walk that checks a line and finds
 * its members (pd_json_check_spans(), pd_json_check_spans_value()) refuses
 * what the check refuses and finds what the span functions find; and every
 * fixture transcript, whole and broken, reads to the same sessions either
 * way, so do transcripts made to reach the walk's bounds.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-import-private.h"
#include "pd-import-scanner.h"
#include "pd-import-test.h"
#include "pd-json.h"
#include "pd-json-span.h"
#include "pd-gemini-reader.h"
#include "pd-qwen-reader.h"

/* Arrays within arrays, a member picked whole beside members picked in
 * part, names that are prefixes of others. */
static const PdJsonPick deep_inner[] = {
  { "a", NULL }, { "ab", NULL }, { NULL, NULL },
};
static const PdJsonPick deep_pick[] = {
  { "type", NULL }, { "x", deep_inner }, { "message", deep_inner }, { "content", deep_inner },
  { "payload", deep_inner }, { NULL, NULL },
};

static const PdJsonPick *
all_picks (guint i)
{
  switch (i)
    {
    case 0: return _pd_claude_line_pick;
    case 1: return _pd_codex_line_pick;
    case 2: return deep_pick;
    default: return NULL;
    }
}

/* The reference: @node (a whole tree) with @pick applied, as
 * pd_json_parse_picked() documents it, built the obvious way. */
static JsonNode *
prune (JsonNode         *node,
       const PdJsonPick *pick)
{
  if (pick == NULL)
    return json_node_copy (node);
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *in = json_node_get_object (node);
      g_autoptr(JsonObject) out = json_object_new ();

      for (const PdJsonPick *p = pick; p->name != NULL; p++)
        {
          JsonNode *member = json_object_get_member (in, p->name);

          if (member != NULL)
            json_object_set_member (out, p->name, prune (member, p->members));
        }
      return json_node_init_object (json_node_alloc (), out);
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *in = json_node_get_array (node);
      g_autoptr(JsonArray) out = json_array_new ();

      for (guint i = 0; i < json_array_get_length (in); i++)
        json_array_add_element (out, prune (json_array_get_element (in, i), pick));
      return json_node_init_array (json_node_alloc (), out);
    }
  return json_node_copy (node);
}

static guint n_checked, n_refused;

/* What the spans give of @span is what the whole tree @whole holds: every
 * member by its name (the last of a repeated name, escapes undone), every
 * element in order, every string, literal and number. */
static void
check_span (JsonNode   *whole,
            PdJsonSpan  span,
            const char *line)
{
  g_assert_cmpuint (span.length, >, 0);
  if (JSON_NODE_HOLDS_OBJECT (whole))
    {
      JsonObject *object = json_node_get_object (whole);
      g_autoptr(GList) names = json_object_get_members (object);

      g_assert_true (pd_json_span_is_object (span));
      for (GList *l = names; l != NULL; l = l->next)
        {
          PdJsonSpan value;

          if (!pd_json_span_get_member (span, l->data, &value))
            g_error ("no member \"%s\" in the span of %.300s", (const char *) l->data, line);
          check_span (json_object_get_member (object, l->data), value, line);
        }
      {
        PdJsonSpan value;

        g_assert_false (pd_json_span_get_member (span, "no such member", &value));
      }
      /* A member's members read in the same pass as the object's. */
      for (GList *l = names; l != NULL; l = l->next)
        {
          JsonNode *member = json_object_get_member (object, l->data);
          const char *outer[] = { l->data, NULL };
          const char *inner[8] = { NULL };
          PdJsonSpan outer_values[1], inner_values[8];
          g_autoptr(GList) inner_list = NULL;
          guint n = 0;

          if (JSON_NODE_HOLDS_OBJECT (member))
            inner_list = json_object_get_members (json_node_get_object (member));
          for (GList *m = inner_list; m != NULL && n < 6; m = m->next)
            inner[n++] = m->data;
          inner[n] = "no such member";
          pd_json_span_get_members_within (span, outer, outer_values, 0, inner, inner_values);
          check_span (member, outer_values[0], line);
          for (guint i = 0; i < n; i++)
            check_span (json_object_get_member (json_node_get_object (member), inner[i]), inner_values[i], line);
          g_assert_cmpuint (inner_values[n].length, ==, 0);
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (whole))
    {
      JsonArray *array = json_node_get_array (whole);
      PdJsonSpan element;
      gsize cursor = 0;
      guint i = 0;

      g_assert_true (pd_json_span_is_array (span));
      while (pd_json_span_next_element (span, &cursor, &element))
        {
          g_assert_cmpuint (i, <, json_array_get_length (array));
          check_span (json_array_get_element (array, i++), element, line);
        }
      g_assert_cmpuint (i, ==, json_array_get_length (array));
    }
  else if (JSON_NODE_HOLDS_NULL (whole) && pd_json_span_is_number (span))
    {
      /* A number beyond a double's range reads as null in a foreign
       * document, as a span made a node does too. */
      g_autoptr(JsonNode) number = pd_json_span_to_node (span, NULL);

      g_assert_true (JSON_NODE_HOLDS_NULL (number));
    }
  else if (JSON_NODE_HOLDS_NULL (whole))
    g_assert_cmpint (span.text[0], ==, 'n');
  else if (json_node_get_value_type (whole) == G_TYPE_STRING)
    {
      g_autofree char *text = pd_json_span_dup_string (span);

      g_assert_cmpstr (text, ==, json_node_get_string (whole));
      g_assert_true (pd_json_span_string_equal (span, json_node_get_string (whole)));
    }
  else if (json_node_get_value_type (whole) == G_TYPE_BOOLEAN)
    {
      g_assert_true (pd_json_span_is_boolean (span));
      g_assert_cmpint (span.text[0] == 't', ==, json_node_get_boolean (whole));
    }
  else
    {
      g_autoptr(JsonNode) number = pd_json_span_to_node (span, NULL);

      g_assert_true (pd_json_span_is_number (span));
      g_assert_true (json_node_equal (number, whole));
    }
}

/* pd_json_check_spans() against the check and the span functions: a
 * pick like the Claude Code reader's (its content blocks, with a member
 * of theirs picked within, and the result's items), and names that are
 * prefixes of others within objects and rows; each with rows kept whole
 * and cut short. */
enum { S_TYPE, S_SIDECHAIN, S_MESSAGE, S_CONTENT, S_RESULT, S_SUCCESS, S_TODOS, S_X, S_XA, S_XAB, S_DEEP, S_DOCUMENT, N_S };
enum { T_BLOCKS, T_TODOS, T_DEEP, T_RECORDS, N_T };

static const PdJsonSpanPick span_input_pick[] = { { "todos", 8 }, { NULL } };
static const PdJsonSpanPick span_block_pick[] = {
  { "type", 1 }, { "name", 2 }, { "id", 3 }, { "input", 4, span_input_pick }, { "tool_use_id", 5 },
  { "is_error", 6 }, { "content", 7 }, { NULL },
};
static const PdJsonSpanPick span_todo_pick[] = {
  { "content", 1 }, { "text", 2 }, { "status", 3 }, { "id", 4 }, { NULL },
};
static const PdJsonSpanPick span_deep_inner[] = { { "a", 1 }, { "ab", 2 }, { NULL } };
static const PdJsonSpanPick span_message_pick[] = {
  { "content", S_CONTENT, NULL, span_block_pick, T_BLOCKS, 9 }, { NULL },
};
static const PdJsonSpanPick span_result_pick[] = {
  { "success", S_SUCCESS }, { "newTodos", S_TODOS, NULL, span_todo_pick, T_TODOS, 5 }, { NULL },
};
static const PdJsonSpanPick span_x_pick[] = { { "a", S_XA }, { "ab", S_XAB }, { NULL } };
static const PdJsonSpanPick span_line_pick[] = {
  { "type", S_TYPE }, { "isSidechain", S_SIDECHAIN }, { "message", S_MESSAGE, span_message_pick },
  { "toolUseResult", S_RESULT, span_result_pick }, { "x", S_X, span_x_pick },
  { "payload", S_DEEP, NULL, span_deep_inner, T_DEEP, 3 }, { NULL },
};

static guint n_spans_checked, n_spans_cut;

static void reference_spans (PdJsonSpan object, const PdJsonSpanPick *pick, PdJsonSpan *base,
                             PdJsonSpanTable *tables);

/* The reference: what the span functions give of @value (length 0: none)
 * for the member @p picks. */
static void
reference_value (PdJsonSpan            value,
                 const PdJsonSpanPick *p,
                 PdJsonSpan           *base,
                 PdJsonSpanTable      *tables)
{
  base[p->slot] = value;
  if (p->members != NULL)
    reference_spans (value, p->members, base, tables);
  if (p->elements != NULL)
    {
      PdJsonSpanTable *table = &tables[p->table];
      PdJsonSpan element;
      gsize cursor = 0;

      g_array_set_size (table->rows, 0);
      table->cut = FALSE;
      while (pd_json_span_next_element (value, &cursor, &element))
        {
          PdJsonSpan *row;

          if (table->rows->len / p->row_size >= table->max_rows)
            {
              table->cut = TRUE;
              continue;
            }
          g_array_set_size (table->rows, table->rows->len + p->row_size);
          row = &g_array_index (table->rows, PdJsonSpan, table->rows->len - p->row_size);
          memset (row, 0, p->row_size * sizeof (PdJsonSpan));
          row[0] = element;
          reference_spans (element, p->elements, row, NULL);
        }
    }
}

/* The same for the members @pick names of @object. */
static void
reference_spans (PdJsonSpan            object,
                 const PdJsonSpanPick *pick,
                 PdJsonSpan           *base,
                 PdJsonSpanTable      *tables)
{
  for (const PdJsonSpanPick *p = pick; p->name != NULL; p++)
    {
      PdJsonSpan value = { NULL, 0 };

      if (!pd_json_span_is_object (object) || !pd_json_span_get_member (object, p->name, &value))
        value = (PdJsonSpan) { NULL, 0 };
      reference_value (value, p, base, tables);
    }
}

static void
assert_same_span (PdJsonSpan  a,
                  PdJsonSpan  b,
                  const char *what,
                  const char *line)
{
  if (a.length != b.length || (a.length > 0 && a.text != b.text))
    g_error ("%s: span %.40s (%" G_GSIZE_FORMAT ") where the span functions give %.40s (%" G_GSIZE_FORMAT ") in %.300s",
             what, a.length ? a.text : "", a.length, b.length ? b.text : "", b.length, line);
}

/* pd_json_check_spans_value() against the same: the text as a whole value,
 * an array of records as the Cline reader reads a task (the records' rows,
 * kept whole and cut short), or an object (the same members as above). */
static const PdJsonSpanPick span_record_text_pick[] = { { "a", 6 }, { "ab", 7 }, { NULL } };
static const PdJsonSpanPick span_record_pick[] = {
  { "type", 1 }, { "ask", 2 }, { "say", 3 }, { "ts", 4 }, { "text", 5, span_record_text_pick }, { NULL },
};
static const PdJsonSpanPick span_document_pick = { "", S_DOCUMENT, span_line_pick, span_record_pick, T_RECORDS, 8 };

/* The span of the value of @copy: the text less the white space around
 * it. */
static PdJsonSpan
value_span (const char *copy,
            gsize       length)
{
  PdJsonSpan span = { copy, length };

  while (span.length > 0 && g_ascii_isspace (span.text[0]))
    span.text++, span.length--;
  while (span.length > 0 && g_ascii_isspace (span.text[span.length - 1]))
    span.length--;
  return span;
}

static void
tables_clear (PdJsonSpanTable *tables)
{
  for (guint t = 0; t < N_T; t++)
    pd_json_span_table_clear (&tables[t]);
}

/* The rows the one walk found are the reference's, cut where it cut. */
static void
assert_same_tables (const PdJsonSpanTable *tables,
                    const PdJsonSpanTable *expected,
                    const char            *copy)
{
  for (guint t = 0; t < N_T; t++)
    {
      g_assert_cmpuint (tables[t].rows->len, ==, expected[t].rows->len);
      g_assert_cmpint (tables[t].cut, ==, expected[t].cut);
      n_spans_cut += tables[t].cut;
      for (guint i = 0; i < tables[t].rows->len; i++)
        assert_same_span (g_array_index (tables[t].rows, PdJsonSpan, i),
                          g_array_index (expected[t].rows, PdJsonSpan, i), "a row's", copy);
    }
}

static void
check_spans_document (const char *copy,
                      gsize       length)
{
  const guint limits[] = { 4096, 1 };

  for (guint l = 0; l < G_N_ELEMENTS (limits); l++)
    {
      g_autoptr(GError) check_error = NULL;
      g_autoptr(GError) spans_error = NULL;
      PdJsonSpan values[N_S], expected[N_S];
      PdJsonSpanTable tables[N_T], expected_tables[N_T];
      gboolean checked, found;
      PdJsonSpan root = value_span (copy, length);

      for (guint t = 0; t < N_T; t++)
        {
          pd_json_span_table_init (&tables[t], limits[l]);
          pd_json_span_table_init (&expected_tables[t], limits[l]);
        }
      checked = pd_json_check_foreign (copy, (gssize) length, &check_error);
      found = pd_json_check_spans_value (copy, length, &span_document_pick, values, tables, &spans_error);
      n_spans_checked++;
      if (!checked)
        {
          if (found)
            g_error ("pd_json_check_spans_value() took a text the check refuses (%s): %.300s", check_error->message, copy);
          g_assert_error (spans_error, PD_JSON_ERROR, check_error->code);
        }
      else
        {
          if (!found)
            g_error ("pd_json_check_spans_value() refused a text the check takes (%s): %.300s", spans_error->message, copy);
          /* Only what the value's kind picks is set. */
          memset (values, 0, sizeof values);
          memset (expected, 0, sizeof expected);
          g_assert_true (pd_json_check_spans_value (copy, length, &span_document_pick, values, tables, NULL));
          reference_value (root, &span_document_pick, expected, expected_tables);
          for (guint i = 0; i < N_S; i++)
            assert_same_span (values[i], expected[i], "a document's", copy);
          assert_same_tables (tables, expected_tables, copy);
        }
      tables_clear (tables);
      tables_clear (expected_tables);
    }
}

static void
check_spans_line (const char *copy,
                  gsize       length)
{
  const guint limits[][N_T] = { { 64, 512, 64, 64 }, { 1, 2, 1, 1 } };

  for (guint l = 0; l < G_N_ELEMENTS (limits); l++)
    {
      g_autoptr(GError) check_error = NULL;
      g_autoptr(GError) spans_error = NULL;
      PdJsonSpan values[N_S], expected[N_S];
      PdJsonSpanTable tables[N_T], expected_tables[N_T];
      gboolean checked, found;
      PdJsonSpan root = value_span (copy, length);

      for (guint t = 0; t < N_T; t++)
        {
          pd_json_span_table_init (&tables[t], limits[l][t]);
          pd_json_span_table_init (&expected_tables[t], limits[l][t]);
          /* Rows of an earlier line are dropped (in the tables the pick
           * names). */
          if (t != T_RECORDS)
            {
              g_array_set_size (tables[t].rows, 3);
              tables[t].cut = TRUE;
            }
        }
      /* Only the slots the pick names are set. */
      memset (values, 0, sizeof values);
      memset (expected, 0, sizeof expected);
      checked = pd_json_check_foreign (copy, (gssize) length, &check_error);
      found = pd_json_check_spans (copy, length, span_line_pick, values, tables, &spans_error);
      n_spans_checked++;
      if (!checked)
        {
          if (found)
            g_error ("pd_json_check_spans() took a line the check refuses (%s): %.300s", check_error->message, copy);
          g_assert_error (spans_error, PD_JSON_ERROR, check_error->code);
        }
      else
        {
          if (!found)
            g_error ("pd_json_check_spans() refused a line the check takes (%s): %.300s", spans_error->message, copy);
          reference_spans (root, span_line_pick, expected, expected_tables);
          for (guint i = 0; i < N_S; i++)
            assert_same_span (values[i], expected[i], "a value's", copy);
          assert_same_tables (tables, expected_tables, copy);
        }
      tables_clear (tables);
      tables_clear (expected_tables);
    }
  check_spans_document (copy, length);
}

/* With every pick (@which -1), or the one @which names. */
static void
check_line (const char *line,
            gsize       length,
            gint        which)
{
  /* Both parsers read @length bytes; a NUL after them, as the JSON lines
   * reader leaves one. */
  g_autofree char *copy = g_strndup (line, length);

  check_spans_line (copy, length);
  for (guint i = 0; all_picks (i) != NULL; i++)
    {
      g_autoptr(GError) whole_error = NULL;
      g_autoptr(GError) picked_error = NULL;
      g_autoptr(JsonNode) whole = NULL;
      g_autoptr(JsonNode) picked = NULL;
      g_autoptr(GError) check_error = NULL;
      gboolean checked;

      if (which >= 0 && (guint) which != i)
        continue;

      whole = pd_json_parse_full (copy, (gssize) length, PD_JSON_PARSE_FOREIGN, &whole_error);
      picked = pd_json_parse_picked (copy, (gssize) length, all_picks (i), &picked_error);
      checked = pd_json_check_foreign (copy, (gssize) length, &check_error);
      n_checked++;
      if (whole == NULL)
        {
          if (picked != NULL)
            g_error ("picked parse took a line the whole parse refuses (%s): %.300s", whole_error->message, copy);
          if (checked)
            g_error ("the check took a line the whole parse refuses (%s): %.300s", whole_error->message, copy);
          g_assert_error (picked_error, PD_JSON_ERROR, whole_error->code);
          g_assert_error (check_error, PD_JSON_ERROR, whole_error->code);
          n_refused++;
          continue;
        }
      if (picked == NULL)
        g_error ("picked parse refused a line the whole parse takes (%s): %.300s", picked_error->message, copy);
      if (!checked)
        g_error ("the check refused a line the whole parse takes (%s): %.300s", check_error->message, copy);
      if (i == 0)
        {
          check_span (whole, value_span (copy, length), copy);
        }
      {
        g_autoptr(JsonNode) expected = prune (whole, all_picks (i));

        if (!json_node_equal (expected, picked))
          {
            g_autofree char *a = json_to_string (expected, FALSE);
            g_autofree char *b = json_to_string (picked, FALSE);

            g_error ("picked tree differs for %.300s\nexpected %.500s\ngot      %.500s", copy, a, b);
          }
      }
    }
}

/* What breaks a line: cuts, and bytes and pieces of JSON spliced in
 * (escapes, surrogates, numbers out of range, deep nesting, bad UTF-8). */
static const char * const pieces[] = {
  "\"", "\\", "{", "}", "[", "]", ",", ":", " ", "\\\"", "\\u0000", "\\ud800", "\\udc00", "\\ud83d\\ude00",
  "\\u00e9", "\\u0054odoWrite", "\\x", "1e999", "-1e-999", "99999999999999999999", "-0", "01", "1.", ".5",
  "-", "0.5e+3", "true", "nul", "\xff", "\xc3", "\xe2\x80\xae", "\t", "\n", "\"type\":", "\"message\":{",
  "\"content\":[{\"a\":1,\"ab\":[[{\"a\":2}]]}],", "\"x\":[[[]],{}],",
};

static void
check_mutations (const char *line,
                 gsize       length,
                 GRand      *rand)
{
  /* Each broken line against one pick, in turn. */
  gint which = g_rand_int_range (rand, 0, 3);

  check_line (line, length, -1);

  /* Cut short, anywhere. */
  for (guint i = 0; i < 4 && length > 0; i++)
    check_line (line, (gsize) g_rand_int_range (rand, 0, (gint32) length), which);

  /* A piece spliced in, or put in place of a byte. */
  for (guint i = 0; i < 12; i++)
    {
      const char *piece = pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))];
      gsize at = length > 0 ? (gsize) g_rand_int_range (rand, 0, (gint32) length) : 0;
      gsize drop = g_rand_boolean (rand) && at < length ? 1 : 0;
      g_autoptr(GString) mutated = g_string_new_len (line, (gssize) at);

      g_string_append (mutated, piece);
      g_string_append_len (mutated, line + at + drop, (gssize) (length - at - drop));
      check_line (mutated->str, mutated->len, which);
    }

  /* Inside nesting deeper than the foreign bound, and just within it (one
   * line in sixteen). */
  for (guint depth = PD_JSON_FOREIGN_MAX_DEPTH - 1;
       depth <= PD_JSON_FOREIGN_MAX_DEPTH && g_rand_int_range (rand, 0, 16) == 0; depth++)
    {
      g_autoptr(GString) nested = g_string_new (NULL);

      for (guint i = 0; i < depth; i++)
        g_string_append (nested, "{\"x\":");
      g_string_append_len (nested, line, (gssize) length);
      for (guint i = 0; i < depth; i++)
        g_string_append_c (nested, '}');
      check_line (nested->str, nested->len, which);
    }
}

/* Numbers as the check skips them (most without the reader) and as the
 * whole parse reads them: alone, in an object, in an array, at the end. */
static void
test_numbers (void)
{
  g_autoptr(GString) digits = g_string_new ("1");
  const char *numbers[] = {
    "0", "-0", "00", "01", "-01", "0.", "0.0", "0.5", "-0.5", "0.05e", "0e1", "0E-1", "1.5e+3", "1.5e", "12",
    "123456789012345678", "1234567890123456789", "99999999999999999999", "-9223372036854775808",
    "9223372036854775808", "1.", ".5", "-", "--1", "1e999", "-1e-999", "0.000001", "3.25x", "7 ", NULL,
  };

  for (guint i = 0; numbers[i] != NULL; i++)
    {
      g_autofree char *alone = g_strdup (numbers[i]);
      g_autofree char *member = g_strdup_printf ("{\"n\":%s}", numbers[i]);
      g_autofree char *element = g_strdup_printf ("[%s,1]", numbers[i]);
      g_autofree char *last = g_strdup_printf ("{\"a\":[1,%s]}", numbers[i]);

      check_line (alone, strlen (alone), -1);
      check_line (member, strlen (member), -1);
      check_line (element, strlen (element), -1);
      check_line (last, strlen (last), -1);
    }
  /* Around the length the check takes without the reader (300), and long
   * enough to overflow a double (309 digits and more), with a fraction. */
  while (digits->len < 320)
    {
      g_autofree char *member = g_strdup_printf ("{\"n\":%s}", digits->str);
      g_autofree char *fraction = g_strdup_printf ("{\"n\":0.%s}", digits->str);

      check_line (member, strlen (member), -1);
      check_line (fraction, strlen (fraction), -1);
      g_string_append_c (digits, (char) ('0' + digits->len % 10));
    }
}

/* Lines made to break the one walk: every way of meeting a member again,
 * escaped keys, a key cut by "\u0000", values of the wrong kind, more
 * rows than kept, bad numbers and bad bytes, cut anywhere. */
static void
test_spans_hostile (void)
{
  const char *lines[] = {
    "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"a\"}]},"
    "\"toolUseResult\":{\"success\":true,\"newTodos\":[{\"content\":\"x\",\"status\":\"pending\",\"id\":\"1\"},"
    "{\"text\":\"y\",\"status\":\"completed\",\"id\":2}]}}",
    /* Met again: the last is kept, and nothing of the one before. */
    "{\"message\":{\"content\":[{\"type\":\"a\"},{\"type\":\"b\"}]},\"message\":{\"role\":\"user\"}}",
    "{\"message\":{\"content\":[{\"type\":\"a\"}],\"content\":[{\"name\":\"b\"},3,[]]},\"message\":{\"content\":[{\"id\":\"c\"}]}}",
    "{\"message\":{\"content\":[{\"type\":\"a\"}]},\"message\":\"text\"}",
    "{\"toolUseResult\":{\"newTodos\":[{\"content\":\"x\"}]},\"toolUseResult\":\"Error: no\"}",
    "{\"x\":{\"a\":1,\"ab\":2,\"a\":{\"ab\":3}},\"x\":[{\"a\":4}],\"x\":{\"abc\":5,\"ab\":6}}",
    /* Escaped keys and strings, and a key a "\u0000" cuts to a name. */
    "{\"\\u0074ype\":\"as\\u0073istant\",\"type\\u0000x\":\"cut\",\"message\":{\"con\\tent\":[1],\"content\":[{\"n\\u0061me\":\"\\\"TodoWrite\\\"\"}]}}",
    "{\"t\\ype\":1}",
    "{\"type\":\"\\ud800\\udc00\\ud800\",\"message\":{\"content\":[{\"id\":\"\\u0000\"}]}}",
    /* Values of the wrong kind where objects and arrays are picked. */
    "{\"message\":[{\"content\":[]}],\"toolUseResult\":[{\"newTodos\":[]}],\"payload\":{\"a\":1}}",
    "{\"message\":{\"content\":{\"type\":\"a\"}},\"toolUseResult\":{\"newTodos\":\"[]\"},\"payload\":[1,\"a\",null,[{\"a\":1}],{\"ab\":{\"a\":2}}]}",
    "{\"message\":{\"content\":[]},\"payload\":[],\"toolUseResult\":{}}",
    "[{\"type\":\"user\"}]",
    /* A task's records: met again, escaped, of the wrong kind, nested. */
    " [{\"type\":\"say\",\"say\":\"task\",\"s\\u0061y\":\"text\",\"ts\":1e400,\"text\":{\"a\":[1],\"ab\":{}}},"
    "7,\"x\",[],{},{\"text\":\"t\",\"text\":{\"ab\":2}},{\"ask\":[{\"ask\":1}],\"ts\":-0.5e-3}] ",
    "\"type\"",
    /* Deep, and more rows than either limit keeps. */
    "{\"message\":{\"content\":[{\"input\":{\"todos\":[[[[{\"a\":[]}]]]]}},{},{},{\"type\":{\"type\":[]}}]},"
    "\"payload\":[{\"a\":[[[]]]},{},{},{},{\"ab\":1}]}",
    /* Numbers out of range, and not numbers. */
    "{\"type\":1e999,\"isSidechain\":-1e-999,\"message\":{\"content\":[99999999999999999999,-0,0.5e+3]}}",
    "{\"type\":01}",
    "{\"type\":1.}",
    "{\"type\":-}",
    /* Bad bytes: in a value, in a key, outside any string. */
    "{\"type\":\"\xff\"}",
    "{\"ty\xc3pe\":1}",
    "{\"type\":1,\xe2\x80\xae}",
    "{\"type\":\"\\x\"}",
    "{\"type\":\"a\"}  ",
    "{\"type\":\"a\"}}",
    "{\"type\":\"a\"} {}",
    "{,}",
    "{\"type\"}",
    "",
  };

  n_spans_checked = n_spans_cut = 0;
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      gsize length = strlen (lines[i]);

      /* Whole, and cut after every byte. */
      for (gsize cut = 0; cut <= length; cut++)
        {
          g_autofree char *copy = g_strndup (lines[i], cut);

          check_spans_line (copy, cut);
        }
    }
  g_assert_cmpuint (n_spans_cut, >, 0);

  /* The escaped key is the name; the one "\u0000" cuts is too, and as the
   * later member it is the one kept. */
  {
    const char *line = lines[6];
    PdJsonSpan values[N_S];
    PdJsonSpanTable tables[N_T];

    for (guint t = 0; t < N_T; t++)
      pd_json_span_table_init (&tables[t], 8);
    g_assert_true (pd_json_check_spans (line, strlen (line), span_line_pick, values, tables, NULL));
    g_assert_true (pd_json_span_string_equal (values[S_TYPE], "cut"));
    g_assert_cmpuint (tables[T_BLOCKS].rows->len, ==, 9);
    g_assert_true (pd_json_span_string_equal (g_array_index (tables[T_BLOCKS].rows, PdJsonSpan, 2), "\"TodoWrite\""));

    /* Reset, a table is empty and not cut for the next walk; cleared, it
     * holds no rows. */
    tables[T_BLOCKS].cut = TRUE;
    pd_json_span_table_reset (&tables[T_BLOCKS]);
    g_assert_cmpuint (tables[T_BLOCKS].rows->len, ==, 0);
    g_assert_false (tables[T_BLOCKS].cut);
    g_assert_cmpuint (tables[T_BLOCKS].max_rows, ==, 8);
    tables_clear (tables);
    g_assert_null (tables[T_BLOCKS].rows);
  }
}

static void
collect_files (const char *dir,
               GPtrArray  *files)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle && (name = g_dir_read_name (handle)))
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        continue;
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        collect_files (path, files);
      else if (g_str_has_suffix (name, ".jsonl") || g_str_has_suffix (name, ".json"))
        g_ptr_array_add (files, g_steal_pointer (&path));
    }
  _pd_import_sort_names (files);
}

static void
check_lines_of (const char *root)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GRand) rand = g_rand_new_with_seed (18);
  guint n_lines = 0;

  collect_files (root, files);
  g_assert_cmpuint (files->len, >, 0);
  n_checked = n_refused = 0;
  n_spans_checked = n_spans_cut = 0;
  for (guint f = 0; f < files->len; f++)
    {
      g_autofree char *text = NULL;
      gsize size;
      g_auto(GStrv) lines = NULL;

      g_assert_true (g_file_get_contents (g_ptr_array_index (files, f), &text, &size, NULL));
      lines = g_strsplit (text, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        {
          check_mutations (lines[i], strlen (lines[i]), rand);
          n_lines++;
        }
    }
  g_test_message ("%u files, %u lines: %u parses compared, %u refused by both; %u span walks, %u tables cut",
                  files->len, n_lines, n_checked, n_refused, n_spans_checked, n_spans_cut);
  /* The mutations do reach both outcomes. */
  g_assert_cmpuint (n_refused, >, 0);
  g_assert_cmpuint (n_refused, <, n_checked);
  g_assert_cmpuint (n_spans_cut, >, 0);
}

static void
test_lines_own (void)
{
  g_autofree char *root = g_strdup (g_getenv ("PD_FIXTURES_DIR"));

  g_assert_nonnull (root);
  check_lines_of (root);
}

static void
test_lines_shared (void)
{
  g_autofree char *root = pd_import_test_shared_fixtures ("");

  if (root == NULL)
    return;
  check_lines_of (root);
}

/* The sessions the scanner reads from @dir, as the JSON `import --json`
 * prints, with the readers picking lines or building whole trees. */
static char *
read_sessions (const char *dir,
               gboolean    pick)
{
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(JsonArray) array = json_array_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;

  _pd_import_set_pick_lines (pick);
  sessions = pd_import_read_path (dir, NULL, &error);
  _pd_import_set_pick_lines (TRUE);
  g_assert_no_error (error);
  for (guint i = 0; i < sessions->len; i++)
    json_array_add_element (array, pd_imported_session_to_json (g_ptr_array_index (sessions, i), TRUE));
  root = json_node_init_array (json_node_alloc (), array);
  return json_to_string (root, TRUE);
}

/* The sessions of @dir read both ways, the same; returns them. */
static char *
read_sessions_alike (const char *dir)
{
  g_autofree char *picked = read_sessions (dir, TRUE);
  g_autofree char *whole = read_sessions (dir, FALSE);

  g_assert_cmpstr (picked, ==, whole);
  g_assert_cmpuint (strlen (picked), >, 2);
  return g_steal_pointer (&picked);
}

static void
check_sessions_of (const char *dir)
{
  g_free (read_sessions_alike (dir));
}

/* Each transcript of @root copied with lines broken as check_mutations()
 * breaks them (one line in four), then read both ways. */
static void
check_broken_sessions_of (const char *root)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GRand) rand = g_rand_new_with_seed (1818);
  g_autofree char *tmp = g_dir_make_tmp ("pd-test-pick-XXXXXX", NULL);

  collect_files (root, files);
  for (guint round = 0; round < 3; round++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/%u", tmp, round);

      for (guint f = 0; f < files->len; f++)
        {
          const char *path = g_ptr_array_index (files, f);
          g_autofree char *relative = g_strdup (path + strlen (root));
          g_autofree char *target = g_build_filename (dir, relative, NULL);
          g_autofree char *parent = g_path_get_dirname (target);
          g_autofree char *text = NULL;
          g_auto(GStrv) lines = NULL;
          g_autoptr(GString) out = g_string_new (NULL);

          if (!g_str_has_suffix (path, ".jsonl"))
            continue;
          g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
          lines = g_strsplit (text, "\n", -1);
          for (guint i = 0; lines[i] != NULL; i++)
            {
              gsize length = strlen (lines[i]);

              if (i > 0)
                g_string_append_c (out, '\n');
              if (i > 0 && length > 0 && g_rand_int_range (rand, 0, 4) == 0)
                {
                  const char *piece = pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))];
                  gsize at = (gsize) g_rand_int_range (rand, 0, (gint32) length);

                  g_string_append_len (out, lines[i], (gssize) at);
                  g_string_append (out, piece);
                  g_string_append (out, lines[i] + at + 1);
                }
              else
                g_string_append (out, lines[i]);
            }
          g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
          g_assert_true (g_file_set_contents (target, out->str, (gssize) out->len, NULL));
        }
      check_sessions_of (dir);
    }
  pd_test_remove_tree (tmp);
}

static void
test_sessions_own (void)
{
  const char * const agents[] = { "claude-code", "codex" };

  for (guint i = 0; i < G_N_ELEMENTS (agents); i++)
    {
      g_autofree char *dir = pd_import_test_fixtures (agents[i]);

      check_sessions_of (dir);
      check_broken_sessions_of (dir);
    }
}

static void
test_sessions_shared (void)
{
  const char * const agents[] = { "claude-code", "codex" };

  for (guint i = 0; i < G_N_ELEMENTS (agents); i++)
    {
      g_autofree char *dir = pd_import_test_shared_fixtures (agents[i]);

      if (dir == NULL)
        return;
      check_sessions_of (dir);
      check_broken_sessions_of (dir);
    }
}

/* A Claude Code transcript of what the in-place reading of plan lines
 * must read as the trees are read: escapes in keys and names, repeated
 * members, ids that are numbers, results without a list, errors, several
 * results in a line, other plan tools beside TodoWrite, broken lines. */
static const char * const hostile_claude[] = {
  "{\"type\":\"user\",\"cwd\":\"/tmp/pick\",\"sessionId\":\"00000000-0000-4000-8000-000000000018\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"make a plan\"}}",
  /* An escaped key and tool name, the tool named elsewhere in the line, white space */
  "{ \"t\\u0079pe\" : \"assistant\" ,\t\"timestamp\":\"2026-01-01T00:00:01Z\", \"note\":\"TodoWrite\", \"message\" : { \"content\" : [ {\"type\":\"text\",\"text\":\"say \\\"TodoWrite\\\" \\\\\"} , { \"type\":\"tool_use\", \"id\":\"t1\", \"name\":\"Todo\\u0057rite\", \"input\":{\"todos\":[{\"content\":\"a \\\"quoted\\\" \\\\ item\",\"status\":\"pending\",\"id\":7},{\"content\":\"b\",\"status\":\"in_progress\",\"id\":\"x\"}]}} ] } }",
  /* A repeated toolUseResult (the last counts), a text cut at \u0000, ids 1e2, "" and -0, a repeated content */
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:02Z\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"ok\"}]},\"toolUseResult\":{\"newTodos\":[{\"content\":\"wrong\",\"status\":\"pending\"}]},\"toolUseResult\":{\"oldTodos\":[{\"content\":\"old\"}],\"newTodos\":[{\"content\":\"a \\\"quoted\\\" \\\\\\\\ item\",\"status\":\"completed\",\"id\":7},{\"content\":\"b\\u0000cut\",\"status\":\"pending\",\"id\":1e2},{\"text\":\"c\",\"status\":\"in_progress\",\"id\":\"\"},{\"content\":\"d\",\"content\":\"d last\",\"status\":\"pending\",\"id\":-0}]}}",
  /* No newTodos: the input is the list */
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:03Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[{\"content\":\"from the input\",\"status\":\"pending\"}]}}]}}",
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:04Z\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}]},\"toolUseResult\":\"Todos have been modified\"}",
  /* An error as the result */
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:05Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t3\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[{\"content\":\"never\",\"status\":\"pending\"}]}}]}}",
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:06Z\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t3\",\"content\":\"x\"}]},\"toolUseResult\":\"Error: no\"}",
  /* TodoWrite and ExitPlanMode in one line, answered in one line (one toolUseResult for three results) */
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:07Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t4\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[{\"content\":\"four\",\"status\":\"pending\"}]}},{\"type\":\"tool_use\",\"id\":\"e1\",\"name\":\"ExitPlanMode\",\"input\":{\"plan\":\"# The plan\\n\\n1. do it\"}}]}}",
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:08Z\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"e1\",\"content\":\"rejected\",\"is_error\":true},{\"type\":\"tool_result\",\"tool_use_id\":\"t4\",\"content\":\"ok\"},{\"type\":\"tool_result\",\"tool_use_id\":\"t4\",\"content\":\"again\",\"is_error\":true}]},\"toolUseResult\":{\"success\":false,\"newTodos\":[{\"content\":\"ambiguous\",\"status\":\"pending\"}]}}",
  /* An error flag */
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:09Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t5\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[{\"content\":\"errs\",\"status\":\"pending\"}]}}]}}",
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:10Z\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t5\",\"content\":\"x\",\"is_error\":true}]},\"toolUseResult\":{\"newTodos\":[{\"content\":\"errs\",\"status\":\"completed\"}]}}",
  /* A sidechain's TodoWrite is its own */
  "{\"type\":\"assistant\",\"isSidechain\":true,\"timestamp\":\"2026-01-01T00:00:11Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t6\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[{\"content\":\"side\",\"status\":\"pending\"}]}}]}}",
  "{\"type\":\"user\",\"isSidechain\":true,\"timestamp\":\"2026-01-01T00:00:12Z\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t6\",\"content\":\"ok\"}]},\"toolUseResult\":{\"newTodos\":[{\"content\":\"side\",\"status\":\"pending\"}]}}",
  /* TaskCreate: its result read as a tree */
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:13Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"k1\",\"name\":\"TaskCreate\",\"input\":{\"subject\":\"task one\"}}]}}",
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:14Z\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"k1\",\"content\":\"Task #1 created successfully: task one\"}]},\"toolUseResult\":{\"task\":{\"id\":\"1\",\"subject\":\"task one\"}}}",
  /* An item that is no object: the list refused */
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:15Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t7\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[\"no\"]}}]}}",
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:16Z\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t7\",\"content\":\"ok\"}]},\"toolUseResult\":{\"newTodos\":[\"no\",{\"content\":\"x\",\"status\":\"pending\"}]}}",
  /* A status that is no string: the list refused */
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:17Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t8\",\"name\":\"TodoWrite\",\"input\":{}}]}}",
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:18Z\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t8\",\"content\":\"ok\"}]},\"toolUseResult\":{\"newTodos\":[{\"content\":\"x\",\"status\":1}]}}",
  /* A task reminder */
  "{\"type\":\"attachment\",\"timestamp\":\"2026-01-01T00:00:19Z\",\"attachment\":{\"type\":\"task_reminder\",\"content\":[{\"id\":\"1\",\"subject\":\"task one\",\"status\":\"in_progress\"}]}}",
  /* Broken lines naming the tool: skipped */
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:20Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t9\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[}]}}",
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:21Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t9\",\"name\":\"TodoWrite\",\"input\":{\"todos\":\"\\ud800\"}}]}}",
  /* A repeated message: only the last is read (a TodoWrite in the first is none) */
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:21Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t11\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[{\"content\":\"shadowed\",\"status\":\"pending\"}]}}]},\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t12\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[{\"content\":\"twelve\",\"status\":\"pending\"}]}}]}}",
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:21Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t13\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[{\"content\":\"thirteen\",\"status\":\"pending\"}]}}]},\"message\":\"none\"}",
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:21Z\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t11\",\"content\":\"ok\"},{\"type\":\"tool_result\",\"tool_use_id\":\"t13\",\"content\":\"ok\"}]}}",
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:21Z\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t12\",\"content\":\"ok\"}]}}",
  /* The last list: a backslash before a closing quote, a key after it */
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:22Z\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t10\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[{\"content\":\"final item \\\\\",\"status\":\"in_progress\"}]}}]}}",
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:23Z\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t10\",\"content\":\"ok\"}]},\"toolUseResult\":{\"newTodos\":[{\"content\":\"final item \\\\\",\"activeForm\":\"\\\\\\\\\",\"status\":\"in_progress\",\"id\":\"f\"},{\"content\":\"\\u00e9t\\u00e9 \\ud83d\\ude00\",\"status\":\"pending\"}]}}",

};

/* The transcript cut after each line, one session each (so that each
 * step's checklist is compared, not only the last), read both ways. */
static void
test_sessions_hostile (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("pd-test-pick-XXXXXX", NULL);
  g_autofree char *project = g_build_filename (tmp, "-tmp-pick", NULL);
  g_autofree char *picked = NULL;

  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  for (guint n = 1; n <= G_N_ELEMENTS (hostile_claude); n++)
    {
      g_autofree char *id = g_strdup_printf ("00000000-0000-4000-8000-%012u", n);
      g_autofree char *name = g_strconcat (id, ".jsonl", NULL);
      g_autofree char *path = g_build_filename (project, name, NULL);
      g_autoptr(GString) text = g_string_new (NULL);

      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "%s\n", hostile_claude[i]);
      g_string_replace (text, "00000000-0000-4000-8000-000000000018", id, 0);
      g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
    }

  /* The lists did reach the sessions. */
  picked = read_sessions_alike (tmp);
  g_assert_nonnull (strstr (picked, "final item \\\\"));
  g_assert_nonnull (strstr (picked, "d last"));
  g_assert_nonnull (strstr (picked, "from the input"));
  g_assert_nonnull (strstr (picked, "task one"));
  g_assert_nonnull (strstr (picked, "twelve"));
  g_assert_null (strstr (picked, "shadowed"));
  g_assert_null (strstr (picked, "thirteen"));
  pd_test_remove_tree (tmp);
}

/* Lines of more content blocks, and lists of more items, than the one
 * walk keeps rows of (the reader then walks their spans again): read the
 * same in place as from trees, the lists whole up to what a checklist
 * keeps. */
static void
test_sessions_many_rows (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("pd-test-pick-XXXXXX", NULL);
  g_autofree char *project = g_build_filename (tmp, "-tmp-rows", NULL);
  g_autofree char *path = g_build_filename (project, "00000000-0000-4000-8000-000000000070.jsonl", NULL);
  g_autofree char *picked = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  const guint n_blocks[] = { 1, 70 };
  const guint n_items[] = { 3, 600 };

  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  g_string_append (text, "{\"type\":\"user\",\"cwd\":\"/tmp/rows\",\"sessionId\":\"00000000-0000-4000-8000-000000000070\","
                         "\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"plan\"}}\n");
  for (guint call = 0; call < G_N_ELEMENTS (n_blocks); call++)
    {
      g_autoptr(GString) todos = g_string_new ("[");

      for (guint i = 0; i < n_items[call]; i++)
        g_string_append_printf (todos, "%s{\"content\":\"list %u item %u\",\"status\":\"%s\",\"id\":\"%u\"}",
                                i ? "," : "", call, i, i % 3 ? "pending" : "completed", i);
      g_string_append_c (todos, ']');

      /* The call last of its blocks, its result last of theirs. */
      g_string_append_printf (text, "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:0%u:01Z\",\"message\":{\"content\":[", call);
      for (guint b = 1; b < n_blocks[call]; b++)
        g_string_append_printf (text, "{\"type\":\"text\",\"text\":\"block %u\"},", b);
      g_string_append_printf (text, "{\"type\":\"tool_use\",\"id\":\"c%u\",\"name\":\"TodoWrite\",\"input\":{\"todos\":%s}}]}}\n",
                              call, todos->str);
      g_string_append_printf (text, "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:0%u:02Z\",\"message\":{\"content\":[", call);
      for (guint b = 1; b < n_blocks[call]; b++)
        g_string_append_printf (text, "{\"type\":\"text\",\"text\":\"block %u\"},", b);
      g_string_append_printf (text, "{\"type\":\"tool_result\",\"tool_use_id\":\"c%u\",\"content\":\"ok\"}]},"
                              "\"toolUseResult\":{\"oldTodos\":[],\"newTodos\":%s}}\n", call, todos->str);
    }
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));

  picked = read_sessions_alike (tmp);
  g_assert_nonnull (strstr (picked, "list 1 item 0\""));
  g_assert_nonnull (strstr (picked, "list 1 item 499\""));
  g_assert_null (strstr (picked, "list 1 item 500\""));
  g_assert_null (strstr (picked, "list 0 item"));

  /* The first list alone: read from the rows. */
  g_string_truncate (text, (gsize) (strstr (text->str, "\"c1\"") - text->str));
  g_string_truncate (text, (gsize) (strrchr (text->str, '\n') - text->str + 1));
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
  g_clear_pointer (&picked, g_free);
  picked = read_sessions_alike (tmp);
  g_assert_nonnull (strstr (picked, "list 0 item 2\""));
  pd_test_remove_tree (tmp);
}

/* The session @read reads from @path, as `import --json` prints it, with
 * the reader picking lines or building whole trees. */
static char *
session_json (PdImportTestReadFunc  read,
              const char           *path,
              gboolean              pick)
{
  g_autoptr(PdImportedSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;

  _pd_import_set_pick_lines (pick);
  session = read (path, &error);
  _pd_import_set_pick_lines (TRUE);
  g_assert_no_error (error);
  node = pd_imported_session_to_json (session, TRUE);
  return json_to_string (node, TRUE);
}

/* The session of @path read both ways, the same; returns it. */
static char *
session_json_alike (PdImportTestReadFunc  read,
                    const char           *path)
{
  g_autofree char *picked = session_json (read, path, TRUE);
  g_autofree char *whole = session_json (read, path, FALSE);

  g_assert_cmpstr (picked, ==, whole);
  return g_steal_pointer (&picked);
}

/* A Qwen Code session checked and read in one walk: a message of more
 * parts than the walk keeps rows of (its parts walked again), a call's
 * list met again in its arguments; read the same in place as from
 * trees. */

static void
test_qwen_one_walk (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("pd-test-pick-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (tmp, "session.jsonl", NULL);
  g_autofree char *picked = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  const char *head = "{\"sessionId\":\"5f0c2a9e-0000-4d8e-a6c2-000000000070\",\"cwd\":\"/tmp/parts\",";

  g_string_append_printf (text, "%s\"timestamp\":\"2026-04-02T08:30:00.000Z\",\"type\":\"user\",\"message\":{\"parts\":[{\"text\":\"plan\"}]}}\n", head);
  g_string_append_printf (text, "%s\"timestamp\":\"2026-04-02T08:30:01.000Z\",\"type\":\"assistant\",\"message\":{\"parts\":[", head);
  for (guint i = 0; i < 70; i++)
    g_string_append_printf (text, "{\"text\":\"part %u\"},", i);
  g_string_append (text, "{\"functionCall\":{\"id\":\"c1\",\"name\":\"todo_write\",\"args\":{\"todos\":[{\"id\":\"1\",\"content\":\"shadowed\",\"status\":\"pending\"}]},"
                         "\"args\":{\"todos\":[{\"id\":\"1\",\"content\":\"many parts\",\"status\":\"in_progress\"}]}}}]}}\n");
  g_string_append_printf (text, "%s\"timestamp\":\"2026-04-02T08:30:02.000Z\",\"type\":\"tool_result\",\"message\":{\"parts\":[", head);
  for (guint i = 0; i < 70; i++)
    g_string_append_printf (text, "{\"text\":\"part %u\"},", i);
  g_string_append (text, "{\"functionResponse\":{\"id\":\"c1\",\"name\":\"todo_write\",\"response\":{\"output\":\"ok\"}}}]},"
                         "\"toolCallResult\":{\"callId\":\"c1\",\"status\":\"success\"}}\n");
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
  picked = session_json_alike (pd_qwen_read, path);
  g_assert_nonnull (strstr (picked, "many parts"));
  g_assert_null (strstr (picked, "shadowed"));

  /* Then, in a line of few parts: a call whose arguments are no object,
   * one whose list is met again, a call of another tool, and their
   * results with an escaped id and a failure. */
  g_string_append_printf (text, "%s\"timestamp\":\"2026-04-02T08:30:03.000Z\",\"type\":\"assistant\",\"message\":{\"parts\":["
                          "{\"functionCall\":{\"id\":\"c2\",\"name\":\"todo_write\",\"args\":\"[]\"}},"
                          "{\"functionCall\":{\"id\":\"c3\",\"name\":\"todo_write\",\"args\":{\"todos\":[{\"id\":\"1\",\"content\":\"old\",\"status\":\"pending\"}],"
                          "\"todos\":[{\"id\":\"1\",\"content\":\"two \\u00e9\",\"status\":\"completed\"},{\"id\":2,\"content\":\"three\",\"status\":\"pending\"}]}}},"
                          "{\"functionCall\":{\"id\":\"c4\",\"name\":\"read_file\",\"args\":{\"todos\":[]}}}]}}\n", head);
  g_string_append_printf (text, "%s\"timestamp\":\"2026-04-02T08:30:04.000Z\",\"type\":\"tool_result\",\"message\":{\"parts\":["
                          "{\"functionResponse\":{\"id\":\"c2\",\"response\":{\"output\":\"ok\"}}},"
                          "{\"functionResponse\":{\"id\":\"c\\u0033\",\"id\":\"c3\",\"response\":{\"output\":\"ok\"}}},"
                          "{\"functionResponse\":{\"id\":\"c4\",\"response\":{\"error\":\"no\"}}}]}}\n", head);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
  g_clear_pointer (&picked, g_free);
  picked = session_json_alike (pd_qwen_read, path);
  g_assert_nonnull (strstr (picked, "two \u00e9"));
  g_assert_null (strstr (picked, "\"old\""));
  pd_test_remove_tree (tmp);
}

/* A Gemini CLI session of JSON lines checked and read in one walk: a
 * message of more calls than the walk keeps rows of, calls refused, lists
 * met again; read the same in place as from trees. */
static void
test_gemini_one_walk (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("pd-test-pick-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (tmp, "session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL);
  g_autoptr(GString) text = g_string_new (NULL);

  g_string_append (text, "{\"sessionId\":\"3fa9c0d1-0000-4b8a-9c61-000000000070\",\"startTime\":\"2026-04-05T10:12:00.000Z\","
                         "\"lastUpdated\":\"2026-04-05T10:12:00.000Z\",\"kind\":\"main\"}\n"
                         "{\"id\":\"m1\",\"timestamp\":\"2026-04-05T10:12:09.000Z\",\"type\":\"user\",\"content\":[{\"text\":\"plan\"}]}\n"
                         "{\"id\":\"m2\",\"timestamp\":\"2026-04-05T10:12:19.000Z\",\"type\":\"gemini\",\"toolCalls\":[");
  for (guint i = 0; i < 70; i++)
    g_string_append_printf (text, "{\"id\":\"read-%u\",\"name\":\"read_file\",\"args\":{\"todos\":[]},\"status\":\"success\"},", i);
  g_string_append (text, "{\"id\":\"w1\",\"name\":\"write_todos\",\"args\":{\"todos\":[{\"description\":\"shadowed\",\"status\":\"pending\"}],"
                         "\"todos\":[{\"description\":\"many calls\",\"status\":\"in_progress\"}]},\"status\":\"success\"}]}\n");
  for (guint round = 0; round < 2; round++)
    {
      g_autofree char *picked = NULL;

      g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
      picked = session_json_alike (pd_gemini_read, path);
      g_assert_null (strstr (picked, "shadowed"));
      g_assert_null (strstr (picked, "refused"));
      g_assert_nonnull (strstr (picked, round == 0 ? "many calls" : "two \u00e9"));
      /* Then, in a line of few calls: one refused, one whose arguments
       * are no object, one whose list is met again, escaped members. */
      g_string_append (text, "{\"id\":\"m3\",\"timestamp\":\"2026-04-05T10:12:29.000Z\",\"type\":\"gemini\",\"toolCalls\":["
                             "{\"name\":\"write_todos\",\"args\":{\"todos\":[{\"description\":\"refused\",\"status\":\"pending\"}]},\"status\":\"error\"},"
                             "{\"name\":\"write_todos\",\"args\":[],\"status\":\"success\"},"
                             "{\"n\\u0061me\":\"write_todos\",\"args\":{\"todos\":[{\"description\":\"old\",\"status\":\"pending\"}],"
                             "\"t\\u006fdos\":[{\"description\":\"two \\u00e9\",\"status\":\"completed\"}]},\"status\":\"success\"},"
                             "{\"name\":\"write_todos\",\"args\":{\"todos\":[{\"description\":\"refused\",\"status\":\"pending\"}]},\"status\":7}]}\n");
    }
  pd_test_remove_tree (tmp);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-pick/lines", test_lines_own);
  g_test_add_func ("/pd/import-pick/numbers", test_numbers);
  g_test_add_func ("/pd/import-pick/spans-hostile", test_spans_hostile);
  g_test_add_func ("/pd/import-pick/lines-shared", test_lines_shared);
  g_test_add_func ("/pd/import-pick/sessions", test_sessions_own);
  g_test_add_func ("/pd/import-pick/sessions-shared", test_sessions_shared);
  g_test_add_func ("/pd/import-pick/sessions-hostile", test_sessions_hostile);
  g_test_add_func ("/pd/import-pick/sessions-many-rows", test_sessions_many_rows);
  g_test_add_func ("/pd/import-pick/qwen-one-walk", test_qwen_one_walk);
  g_test_add_func ("/pd/import-pick/gemini-one-walk", test_gemini_one_walk);
  return g_test_run ();
}
