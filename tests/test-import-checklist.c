/* test-import-checklist.c: the two sections, overrides, and what is stored.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-import-test.h"
#include "pd-redact.h"
#include "pd-session-store.h"

static GPtrArray *
items (const char *first,
       ...)
{
  GPtrArray *array = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);
  va_list args;

  va_start (args, first);
  for (const char *text = first; text; text = va_arg (args, const char *))
    {
      PdChecklistStatus status = va_arg (args, PdChecklistStatus);
      g_ptr_array_add (array, pd_checklist_item_new (text, status, NULL));
    }
  va_end (args);
  return array;
}

static void
test_keys (void)
{
  g_autofree char *a0 = pd_checklist_item_key ("Write tests", 0);
  g_autofree char *a0b = pd_checklist_item_key ("Write tests", 0);
  g_autofree char *a1 = pd_checklist_item_key ("Write tests", 1);
  g_autofree char *b0 = pd_checklist_item_key ("Write the tests", 0);

  g_assert_cmpstr (a0, ==, a0b);
  g_assert_cmpstr (a0, !=, a1);
  g_assert_cmpstr (a0, !=, b0);
  g_assert_cmpuint (strlen (a0), ==, 32);
  g_assert_null (strstr (a0, "Write"));
}

/* Keys taken over from the list replaced (a replay replaces it thousands
 * of times) are the keys the items' text and occurrence give: a text that
 * moved to a second occurrence, or back to the first, gets its own. */
static void
test_keys_across_replacements (void)
{
  g_autoptr(PdChecklist) list = pd_checklist_new ();
  const char * const texts[][4] = {
    { "Same", "Same", "Other", NULL },
    { "Other", "Same", "New", NULL },
    { "Same", "Other", "Other", "Same" },
    { "Other", "Same", "Same", NULL },
  };

  for (guint round = 0; round < G_N_ELEMENTS (texts); round++)
    {
      GPtrArray *list_items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < 4 && texts[round][i]; i++)
        g_ptr_array_add (list_items, pd_checklist_item_new (texts[round][i], PD_CHECKLIST_STATUS_PENDING, NULL));
      pd_checklist_replace_agent_items (list, PD_CHECKLIST_ORIGIN_TODO_LIST, list_items);
      for (guint i = 0; i < pd_checklist_get_n_agent_items (list); i++)
        {
          const PdChecklistItem *item = pd_checklist_get_agent_item (list, i);
          guint occurrence = GPOINTER_TO_UINT (g_hash_table_lookup (seen, item->text));
          g_autofree char *expected = pd_checklist_item_key (item->text, occurrence);

          g_hash_table_insert (seen, item->text, GUINT_TO_POINTER (occurrence + 1));
          g_assert_cmpstr (item->key, ==, expected);
        }
    }
}

static void
test_overrides (void)
{
  g_autoptr(PdChecklist) list = pd_checklist_new ();
  gboolean checked;
  guint done, total, active;

  pd_checklist_replace_agent_items (list, PD_CHECKLIST_ORIGIN_TODO_LIST,
                                    items ("Same", PD_CHECKLIST_STATUS_PENDING,
                                           "Same", PD_CHECKLIST_STATUS_COMPLETED,
                                           "Other", PD_CHECKLIST_STATUS_IN_PROGRESS, NULL));
  /* Two items of the same text have different keys. */
  g_assert_cmpstr (pd_checklist_get_agent_item (list, 0)->key, !=, pd_checklist_get_agent_item (list, 1)->key);

  pd_checklist_set_checked (list, 0, TRUE);
  pd_checklist_set_checked (list, 1, FALSE);
  g_assert_true (pd_checklist_get_override (list, 0, &checked) && checked);
  g_assert_true (pd_checklist_get_override (list, 1, &checked) && !checked);
  g_assert_cmpint (pd_checklist_get_effective_status (list, 0), ==, PD_CHECKLIST_STATUS_COMPLETED);
  g_assert_cmpint (pd_checklist_get_effective_status (list, 1), ==, PD_CHECKLIST_STATUS_PENDING);
  /* The agent's own state again removes the override. */
  pd_checklist_set_checked (list, 1, TRUE);
  g_assert_false (pd_checklist_get_override (list, 1, NULL));
  g_assert_cmpuint (pd_checklist_get_n_overrides (list), ==, 1);

  /* The user's items follow, and count. */
  pd_checklist_add_user_item (list, "Mine");
  pd_checklist_count (list, &done, &total, &active);
  g_assert_cmpuint (done, ==, 2);
  g_assert_cmpuint (total, ==, 4);
  g_assert_cmpuint (active, ==, 1);

  /* The agent replaces its list: the user's items stay; a reworded item is
   * a new item, the override of the old text no longer applies; the same
   * text gets its override back. */
  pd_checklist_replace_agent_items (list, PD_CHECKLIST_ORIGIN_TODO_LIST,
                                    items ("Same, reworded", PD_CHECKLIST_STATUS_PENDING,
                                           "Other", PD_CHECKLIST_STATUS_IN_PROGRESS, NULL));
  g_assert_false (pd_checklist_get_override (list, 0, NULL));
  g_assert_cmpuint (pd_checklist_get_n_user_items (list), ==, 1);
  pd_checklist_replace_agent_items (list, PD_CHECKLIST_ORIGIN_TODO_LIST,
                                    items ("Same", PD_CHECKLIST_STATUS_PENDING, NULL));
  g_assert_true (pd_checklist_get_override (list, 0, &checked) && checked);
  /* The agent catching up makes the override moot. */
  pd_checklist_replace_agent_items (list, PD_CHECKLIST_ORIGIN_TODO_LIST,
                                    items ("Same", PD_CHECKLIST_STATUS_COMPLETED, NULL));
  g_assert_false (pd_checklist_get_override (list, 0, NULL));
}

static void
test_annotations_stored_without_agent_text (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdChecklist) list = pd_checklist_new ();
  g_autoptr(PdChecklist) loaded = pd_checklist_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) back = NULL;
  g_autofree char *json = NULL;
  g_autofree char *stored = NULL;
  g_autofree char *contents = NULL;
  gboolean checked;
  gsize length;

  g_assert_no_error (error);
  store = pd_session_store_new (db);
  info = pd_session_store_create (store, "imported", "", "", "claude-code", "/w", &error);
  g_assert_no_error (error);

  pd_checklist_replace_agent_items (list, PD_CHECKLIST_ORIGIN_TODO_LIST,
                                    items ("SECRET-AGENT-STEP-TEXT", PD_CHECKLIST_STATUS_PENDING, NULL));
  pd_checklist_set_checked (list, 0, TRUE);
  pd_checklist_add_user_item (list, "my own note");
  pd_checklist_set_user_item_done (list, 0, TRUE);

  node = pd_checklist_annotations_to_json (list);
  json = json_to_string (node, FALSE);
  g_assert_null (strstr (json, "SECRET-AGENT-STEP-TEXT"));
  g_assert_true (pd_session_store_set_annotation (store, info->id, "planOverrides", json, &error));
  g_assert_no_error (error);

  stored = pd_session_store_get_annotation (store, info->id, "planOverrides", &error);
  g_assert_no_error (error);
  back = json_from_string (stored, &error);
  g_assert_no_error (error);
  g_assert_true (pd_checklist_load_annotations (loaded, back, &error));
  pd_checklist_replace_agent_items (loaded, PD_CHECKLIST_ORIGIN_TODO_LIST,
                                    items ("SECRET-AGENT-STEP-TEXT", PD_CHECKLIST_STATUS_PENDING, NULL));
  g_assert_true (pd_checklist_get_override (loaded, 0, &checked) && checked);
  g_assert_cmpuint (pd_checklist_get_n_user_items (loaded), ==, 1);
  g_assert_cmpint (pd_checklist_get_user_item (loaded, 0)->status, ==, PD_CHECKLIST_STATUS_COMPLETED);

  /* Nowhere in the database file. */
  g_clear_object (&store);
  g_clear_object (&db);
  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  g_assert_null (g_strstr_len (contents, (gssize) length, "SECRET-AGENT-STEP-TEXT"));
  pd_test_remove_tree (dir);
}

static void
test_load_refuses_bad_entries (void)
{
  g_autoptr(PdChecklist) list = pd_checklist_new ();
  g_autoptr(JsonNode) node = json_from_string ("{\"planOverrides\":{\"short\":true,\"0123456789abcdef0123456789abcdef\":\"yes\","
                                               "\"0123456789abcdef0123456789abcdef\":true},"
                                               "\"userItems\":[{\"text\":1},{\"text\":\"ok\",\"done\":false},7]}", NULL);
  g_autoptr(JsonNode) bad = json_from_string ("[1]", NULL);

  g_assert_true (pd_checklist_load_annotations (list, node, NULL));
  g_assert_cmpuint (pd_checklist_get_n_overrides (list), ==, 1);
  g_assert_cmpuint (pd_checklist_get_n_user_items (list), ==, 1);
  g_assert_false (pd_checklist_load_annotations (list, bad, NULL));
}

/* An item's text is redacted once however often the agent writes it again
 * (the memo of pd_checklist_item_new()): each item's text is what
 * pd_redact() makes of its own text, for texts met again, texts of the same
 * length that differ in one byte (a secret's last character), a prefix of
 * another, the empty text, texts of 512 bytes and past, non-ASCII; in
 * many orders and from several threads at once. */
static const char * const memo_bases[] = {
  "Set API_KEY=sk-live-0123456789abcdefABCDEF01 in the deploy script",
  "Set API_KEY=sk-live-0123456789abcdefABCDEF02 in the deploy script",
  "Set API_KEY=sk-live-0123456789abcdefABCDEF0",
  "curl -u admin:hunter2hunter2 https://example.com/api",
  "curl -u admin:hunter2hunter3 https://example.com/api",
  "Run the tests",
  "Run the test",
  "Run the tests ",
  "",
  "Übersetze die Meldungen — \u00e9 café",
  "export DB_PASSWORD='correct horse battery staple'",
  "Read https://user:pa55word@example.com/path and fix it",
};

static char *
memo_text (guint i)
{
  guint n_bases = G_N_ELEMENTS (memo_bases);

  if (i < n_bases)
    return g_strdup (memo_bases[i]);
  /* Longer texts either side of the memo's bound, a secret at the end. */
  if (i < n_bases + 4)
    {
      GString *text = g_string_new (NULL);
      gsize length = 510 + (i - n_bases);  /* 510 … 513 */

      while (text->len < length - 30)
        g_string_append_c (text, 'a' + (char) (text->len % 26));
      g_string_append (text, " token=ghp_");
      while (text->len < length)
        g_string_append_c (text, 'Z');
      return g_string_free (text, FALSE);
    }
  /* Many more texts than the memo holds: each of its slots met by several. */
  return g_strdup_printf ("Step %u: set SECRET_TOKEN=s3cr3t%08x", i, i * 2654435761u);
}

#define MEMO_TEXTS 400

static gpointer
memo_round (gpointer data)
{
  guint seed = GPOINTER_TO_UINT (data);
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);

  for (guint n = 0; n < 4000; n++)
    {
      /* Mostly the first few texts, as an agent's list repeats. */
      guint i = g_rand_int_range (rand, 0, g_rand_boolean (rand) ? 20 : MEMO_TEXTS);
      g_autofree char *text = memo_text (i);
      g_autofree char *expected = pd_redact (text, NULL);
      PdChecklistItem *item = pd_checklist_item_new (text, PD_CHECKLIST_STATUS_PENDING, NULL);

      if (g_strcmp0 (item->text, expected) != 0)
        g_error ("text %u redacted as \"%s\", not \"%s\"", i, item->text, expected);
      pd_checklist_item_free (item);
    }
  return NULL;
}

static void
test_redact_memo (void)
{
  guint64 hits = _pd_checklist_get_redact_memo_hits ();
  GThread *threads[4];

  for (guint i = 0; i < G_N_ELEMENTS (memo_bases) + 4; i++)
    {
      g_autofree char *text = memo_text (i);
      g_autofree char *expected = pd_redact (text, NULL);

      for (guint again = 0; again < 2; again++)
        {
          PdChecklistItem *item = pd_checklist_item_new (text, PD_CHECKLIST_STATUS_PENDING, NULL);

          g_assert_cmpstr (item->text, ==, expected);
          pd_checklist_item_free (item);
        }
      /* The second of a text up to 512 bytes was the memo's copy. */
      g_assert_cmpuint (_pd_checklist_get_redact_memo_hits (), ==, hits + (strlen (text) <= 512 ? 1 : 0));
      hits = _pd_checklist_get_redact_memo_hits ();
    }
  /* The secrets were masked (the memo holds what redacting gave). */
  {
    PdChecklistItem *item = pd_checklist_item_new (memo_bases[0], PD_CHECKLIST_STATUS_PENDING, NULL);

    g_assert_null (strstr (item->text, "0123456789abcdef"));
    pd_checklist_item_free (item);
  }

  memo_round (GUINT_TO_POINTER (1));
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    threads[t] = g_thread_new ("memo", memo_round, GUINT_TO_POINTER (t + 2));
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    g_thread_join (threads[t]);
  g_assert_cmpuint (_pd_checklist_get_redact_memo_hits (), >, hits);
}

/* The same memo for a text read in place, by its JSON string as written:
 * each item's text is what unescaping, cleaning and redacting that string
 * gives (the tree's way), for strings met again, the same text written with
 * other escapes, escapes that clean to a blank or cut at a \u0000, strings
 * past the memo's bound, more strings than it holds, and a string whose
 * bytes, quotes and all, are a text pd_checklist_item_new() was given. */
static void
test_redact_memo_json (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  const char * const text_members[] = { "content", NULL };
  static const char * const strings[] = {
    "\"Run the tests\"", "\"Run the \\u0074ests\"", "\"Run\\tthe tests\"", "\"Run\\u0000the tests\"",
    "\"Set API_KEY=sk-live-0123456789abcdefABCDEF01\"", "\"Set API_KEY=sk-live-0123456789abcdefABCDEF02\"",
    "\"Set API_KEY=\\u0073k-live-0123456789abcdefABCDEF01\"", "\"\\\"quoted\\\" step\"", "\"\"",
    "\"\\u202eevil\\u202c order\"", "\"caf\\u00e9 \\ud83d\\ude00\"",
  };
  guint64 hits;

  for (guint round = 0; round < 3000; round++)
    {
      g_autoptr(GString) json = g_string_new ("[");
      g_autoptr(GPtrArray) expected = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GPtrArray) list = NULL;
      guint n = (guint) g_rand_int_range (rand, 1, 8);

      for (guint k = 0; k < n; k++)
        {
          g_autofree char *string = NULL;
          g_autoptr(JsonNode) node = NULL;
          g_autofree char *clean = NULL;
          guint pick = (guint) g_rand_int_range (rand, 0, G_N_ELEMENTS (strings) + 300);

          if (pick < G_N_ELEMENTS (strings))
            string = g_strdup (strings[pick]);
          else if (pick < G_N_ELEMENTS (strings) + 2)
            {
              /* Past the memo's 512 bytes, a secret at the end. */
              g_autofree char *fill = g_strnfill (500 + 20 * (pick - G_N_ELEMENTS (strings)), 'x');

              string = g_strdup_printf ("\"%s token=ghp_ZZZZZZZZZZZZZZZZZZZZZZZZ\"", fill);
            }
          else
            string = g_strdup_printf ("\"Step %u: set SECRET_TOKEN=s3cr3t%08x\"", pick, pick * 2654435761u);
          g_string_append_printf (json, "%s{\"content\":%s,\"status\":\"pending\"}", k ? "," : "", string);
          node = json_from_string (string, NULL);
          g_assert_nonnull (node);
          clean = _pd_import_clean_text (json_node_get_string (node));
          g_ptr_array_add (expected, pd_redact (clean, NULL));
        }
      g_string_append_c (json, ']');
      g_assert_true (pd_json_check_foreign (json->str, json->len, NULL));
      list = _pd_import_items_from_span ((PdJsonSpan) { json->str, json->len }, text_members, NULL);
      g_assert_nonnull (list);
      g_assert_cmpuint (list->len, ==, n);
      for (guint k = 0; k < n; k++)
        g_assert_cmpstr (((PdChecklistItem *) g_ptr_array_index (list, k))->text, ==, g_ptr_array_index (expected, k));
    }

  /* A JSON string and a text of the same bytes: each its own. */
  for (guint round = 0; round < 2; round++)
    {
      const char *bytes = "\"Set API_KEY=sk-live-0123456789abcdefABCDEF01\"";
      const char *json = "[{\"content\":\"Set API_KEY=sk-live-0123456789abcdefABCDEF01\"}]";
      g_autoptr(GPtrArray) list = NULL;
      PdChecklistItem *item;
      g_autofree char *as_text = pd_redact (bytes, NULL);
      g_autofree char *as_json = pd_redact ("Set API_KEY=sk-live-0123456789abcdefABCDEF01", NULL);

      g_assert_cmpstr (as_text, !=, as_json);
      item = pd_checklist_item_new (bytes, PD_CHECKLIST_STATUS_PENDING, NULL);
      g_assert_cmpstr (item->text, ==, as_text);
      pd_checklist_item_free (item);
      list = _pd_import_items_from_span ((PdJsonSpan) { json, strlen (json) }, text_members, NULL);
      g_assert_cmpstr (((PdChecklistItem *) g_ptr_array_index (list, 0))->text, ==, as_json);
    }

  /* A string met again is the memo's copy. */
  hits = _pd_checklist_get_redact_memo_hits ();
  for (guint round = 0; round < 2; round++)
    {
      const char *json = "[{\"content\":\"Write the memo's test\"}]";
      g_autoptr(GPtrArray) list = _pd_import_items_from_span ((PdJsonSpan) { json, strlen (json) }, text_members, NULL);

      g_assert_cmpstr (((PdChecklistItem *) g_ptr_array_index (list, 0))->text, ==, "Write the memo's test");
    }
  g_assert_cmpuint (_pd_checklist_get_redact_memo_hits (), ==, hits + 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-checklist/keys", test_keys);
  g_test_add_func ("/pd/import-checklist/keys-across-replacements", test_keys_across_replacements);
  g_test_add_func ("/pd/import-checklist/overrides", test_overrides);
  g_test_add_func ("/pd/import-checklist/annotations-stored-without-agent-text", test_annotations_stored_without_agent_text);
  g_test_add_func ("/pd/import-checklist/load-refuses-bad-entries", test_load_refuses_bad_entries);
  g_test_add_func ("/pd/import-checklist/redact-memo", test_redact_memo);
  g_test_add_func ("/pd/import-checklist/redact-memo-json", test_redact_memo_json);

  return g_test_run ();
}
