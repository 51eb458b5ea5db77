/* bench-import-real-more.c: the real corpus's part for Qwen Code, Gemini
 * CLI (JSON lines and the older JSON file) and the Cline / Roo Code / Kilo
 * Code task folders, built from the project's fixtures (tests/fixtures:
 * no third-party recordings of these agents with plan calls exist).
 *
 * Each is written at a real plan-call density — a plan call every 26 KB or
 * so, as in the Claude Code sessions of bench-import-real.c: Qwen Code's
 * fixture sessions as they are (167 KB and 5 calls, 3 KB and 2), the others
 * with their fixture's own other records (a read_file call and its output, a
 * message, a command and its output) repeated between the plan calls — and
 * with "many calls" files: thousands of plan calls in one file, the
 * fixture's plan records again and again under new ids.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "bench-import.h"

/* Bytes of other records a plan call comes with in real sessions. */
#define BYTES_PER_CALL (26 * 1024)

static char *
read_text (const char *dir,
           const char *path)
{
  g_autofree char *full = g_build_filename (dir, path, NULL);
  char *text = NULL;

  if (!g_file_get_contents (full, &text, NULL, NULL))
    return NULL;
  return text;
}

static void
add_file (Corpus     *corpus,
          const char *dir,
          const char *name,
          GString    *text)
{
  char *path = g_build_filename (dir, name, NULL);

  g_mkdir_with_parents (dir, 0700);
  bench_write_file (path, text);
  g_ptr_array_add (corpus->files, path);
  corpus->bytes += text->len;
}

static guint64
count (const char *text,
       const char *needle)
{
  guint64 n = 0;

  for (const char *p = text; (p = strstr (p, needle)) != NULL; p++)
    n++;
  return n;
}

static void
replace (GString    *text,
         const char *from,
         const char *to)
{
  g_string_replace (text, from, to, 0);
}

/* --- Qwen Code ----------------------------------------------------------- */

/* @n sessions, the two fixture sessions in turn under new ids, in 20
 * projects; @n_many files of @cycles times the plan call lines of the
 * first. */
gboolean
real_more_qwen (const char *fixtures,
                const char *dir,
                guint       n,
                guint       n_many,
                guint       cycles,
                Corpus     *corpus,
                guint64    *calls)
{
  static const char * const ids[] = { "5f0c2a9e-3b41-4d8e-a6c2-91e07b3d4f18", "9a3b7c11-0d2e-4f5a-8b6c-2e4f6a8c0d13" };
  char *texts[G_N_ELEMENTS (ids)] = { NULL };
  gboolean ok = TRUE;

  for (guint f = 0; f < G_N_ELEMENTS (ids); f++)
    {
      g_autofree char *name = g_strdup_printf ("qwen/projects/-home-dev-src-tidepool/chats/%s.jsonl", ids[f]);

      ok = ok && (texts[f] = read_text (fixtures, name)) != NULL;
    }
  for (guint i = 0; ok && i < n; i++)
    {
      guint f = i % G_N_ELEMENTS (ids);
      g_autofree char *id = g_strdup_printf ("%08x-0000-4000-8000-%012u", i + 1, i);
      g_autofree char *project = g_strdup_printf ("-home-dev-qwen-%02u", i % 20);
      g_autofree char *chats = g_build_filename (dir, project, "chats", NULL);
      g_autofree char *name = g_strconcat (id, ".jsonl", NULL);
      g_autoptr(GString) text = g_string_new (texts[f]);

      replace (text, ids[f], id);
      *calls += count (text->str, "\"name\":\"todo_write\",\"args\"");
      add_file (corpus, chats, name, text);
    }
  for (guint m = 0; ok && m < n_many; m++)
    {
      g_auto(GStrv) lines = g_strsplit (texts[0], "\n", -1);
      g_autofree char *id = g_strdup_printf ("%08x-0000-4000-8000-%012u", 0x10000 + m, m);
      g_autofree char *chats = g_build_filename (dir, "-home-dev-qwen-many", "chats", NULL);
      g_autofree char *name = g_strconcat (id, ".jsonl", NULL);
      g_autoptr(GString) text = g_string_new (NULL);

      /* The session's first two records, then its plan calls and their
       * results again and again, each call under an id of its own. */
      g_string_append_printf (text, "%s\n%s\n", lines[0], lines[1]);
      for (guint c = 0; c < cycles; c++)
        {
          g_autofree char *call = g_strdup_printf ("\"call_k%05u_", c);

          for (guint l = 2; lines[l] != NULL; l++)
            if (strstr (lines[l], "\"name\":\"todo_write\"") != NULL)
              {
                g_autoptr(GString) line = g_string_new (lines[l]);

                replace (line, "\"call_", call);
                g_string_append_len (text, line->str, line->len);
                g_string_append_c (text, '\n');
              }
        }
      replace (text, ids[0], id);
      *calls += count (text->str, "\"name\":\"todo_write\",\"args\"");
      add_file (corpus, chats, name, text);
    }
  for (guint f = 0; f < G_N_ELEMENTS (ids); f++)
    g_free (texts[f]);
  return ok;
}

/* --- Gemini CLI ---------------------------------------------------------- */

static gboolean
is_gemini_plan (const char *record)
{
  return strstr (record, "\"name\":\"write_todos") != NULL;
}

/* The fixture's read_file record (a call with a file's content), under
 * the id @id: the filler of a Gemini session. */
static GString *
gemini_filler (const char *read_file_line,
               const char *old_id,
               const char *id)
{
  GString *line = g_string_new (read_file_line);

  replace (line, old_id, id);
  return line;
}

/* @n sessions in JSON lines and @n in the older JSON file, in 10 project
 * folders; @n_many of each of @cycles times the fixture's plan records. */
gboolean
real_more_gemini (const char *fixtures,
                  const char *dir,
                  guint       n,
                  guint       n_many,
                  guint       cycles,
                  Corpus     *corpus,
                  guint64    *calls)
{
  g_autofree char *jsonl = read_text (fixtures, "gemini/tmp/lantern/chats/session-2026-04-05T10-12-3fa9c0d1.jsonl");
  g_autofree char *json = read_text (fixtures, "gemini/tmp/lantern/chats/session-2026-03-20T09-00-7b1e2f3a.json");
  g_autofree char *project_root = read_text (fixtures, "gemini/tmp/lantern/.project_root");
  g_auto(GStrv) lines = NULL;
  const char *read_file = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *doc;
  JsonArray *messages;

  if (jsonl == NULL || json == NULL || project_root == NULL || !json_parser_load_from_data (parser, json, -1, NULL))
    return FALSE;
  doc = json_node_get_object (json_parser_get_root (parser));
  messages = json_object_get_array_member (doc, "messages");
  lines = g_strsplit (jsonl, "\n", -1);
  for (guint l = 0; lines[l] != NULL; l++)
    if (strstr (lines[l], "\"name\":\"read_file\"") != NULL)
      read_file = lines[l];
  if (read_file == NULL || messages == NULL)
    return FALSE;

  for (guint i = 0; i < 2 * (n + n_many); i++)
    {
      gboolean many = i >= 2 * n;
      gboolean as_json = i % 2 == 1;
      g_autofree char *prefix = g_strdup_printf ("%08x", 0x3fa90000 + i);
      g_autofree char *project = many ? g_strdup ("many") : g_strdup_printf ("project-%02u", i % 10);
      g_autofree char *project_dir = g_build_filename (dir, project, NULL);
      g_autofree char *chats = g_build_filename (project_dir, "chats", NULL);
      g_autofree char *name = g_strdup_printf ("session-2026-04-05T10-12-%s.%s", prefix, as_json ? "json" : "jsonl");
      g_autofree char *root_file = g_build_filename (project_dir, ".project_root", NULL);
      g_autoptr(GString) text = g_string_new (NULL);
      guint filler = 0;
      gsize n_plans = 0;

      g_mkdir_with_parents (project_dir, 0700);
      g_file_set_contents (root_file, project_root, -1, NULL);
      if (!as_json)
        {
          /* The header, then each record; after each plan record enough of
           * the read_file record (under ids of its own) for a real density,
           * or, for many calls, the plan records again and again. */
          g_string_append_printf (text, "%s\n", lines[0]);
          for (guint c = 0; c < (many ? cycles : 1); c++)
            for (guint l = 1; lines[l] != NULL; l++)
              {
                g_autoptr(GString) line = NULL;

                if (*lines[l] == '\0' || (many && !is_gemini_plan (lines[l])))
                  continue;
                line = g_string_new (lines[l]);
                if (many)
                  {
                    g_autofree char *renamed = g_strdup_printf ("\"3fa9c0d1-k%05u-m", c);

                    replace (line, "\"3fa9c0d1-m", renamed);
                  }
                g_string_append_printf (text, "%s\n", line->str);
                n_plans += is_gemini_plan (lines[l]);
                if (!many && is_gemini_plan (lines[l]))
                  while (text->len < n_plans * BYTES_PER_CALL)
                    {
                      g_autofree char *id = g_strdup_printf ("3fa9c0d1-f%05u", filler++);
                      g_autoptr(GString) more = gemini_filler (read_file, "3fa9c0d1-m003", id);

                      g_string_append_printf (text, "%s\n", more->str);
                    }
              }
          replace (text, "3fa9c0d1", prefix);
        }
      else
        {
          /* The older file: one JSON document, its messages likewise. */
          g_autoptr(JsonArray) out = json_array_new ();
          g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
          g_autoptr(JsonObject) copy = json_object_new ();
          g_autoptr(JsonParser) filler_parser = json_parser_new ();
          g_autofree char *generated = NULL;
          gsize plans = 0, bytes = 0;

          json_parser_load_from_data (filler_parser, read_file, -1, NULL);
          for (guint c = 0; c < (many ? cycles : 1); c++)
            for (guint m = 0; m < json_array_get_length (messages); m++)
              {
                JsonNode *message = json_array_get_element (messages, m);
                g_autofree char *message_text = json_to_string (message, FALSE);
                gboolean plan = is_gemini_plan (message_text);

                if (many && !plan)
                  continue;
                if (many)
                  {
                    g_autoptr(GString) renamed = g_string_new (message_text);
                    g_autofree char *to = g_strdup_printf ("\"7b1e2f3a-k%05u-m", c);
                    g_autoptr(JsonNode) node = NULL;

                    replace (renamed, "\"7b1e2f3a-m", to);
                    node = json_from_string (renamed->str, NULL);
                    json_array_add_element (out, g_steal_pointer (&node));
                  }
                else
                  json_array_add_element (out, json_node_copy (message));
                bytes += strlen (message_text);
                plans += plan;
                n_plans += plan;
                if (!many && plan)
                  while (bytes < plans * BYTES_PER_CALL)
                    {
                      g_autoptr(JsonNode) more = json_node_copy (json_parser_get_root (filler_parser));
                      g_autofree char *id = g_strdup_printf ("7b1e2f3a-f%05u", filler++);

                      json_object_set_string_member (json_node_get_object (more), "id", id);
                      bytes += strlen (read_file);
                      json_array_add_element (out, g_steal_pointer (&more));
                    }
              }
          json_object_set_string_member (copy, "sessionId", json_object_get_string_member (doc, "sessionId"));
          json_object_set_string_member (copy, "projectHash", json_object_get_string_member (doc, "projectHash"));
          json_object_set_string_member (copy, "startTime", json_object_get_string_member (doc, "startTime"));
          json_object_set_string_member (copy, "lastUpdated", json_object_get_string_member (doc, "lastUpdated"));
          json_object_set_array_member (copy, "messages", json_array_ref (out));
          json_node_set_object (root, copy);
          generated = json_to_string (root, TRUE);
          g_string_append_printf (text, "%s\n", generated);
          replace (text, "7b1e2f3a", prefix);
        }
      *calls += n_plans;
      add_file (corpus, chats, name, text);
    }
  return TRUE;
}

/* --- Cline, Roo Code, Kilo Code ------------------------------------------ */

static gboolean
is_task_plan (const char *message)
{
  return strstr (message, "\"say\":\"task_progress\"") != NULL || strstr (message, "updateTodoList") != NULL;
}

/* @n task folders of each extension, and @n_many of @cycles times the
 * fixture task's plan messages; ui_messages.json holds the messages (one
 * JSON array), api_conversation_history.json is the fixture's. */
gboolean
real_more_cline (const char *fixtures,
                 const char *dir,
                 guint       n,
                 guint       n_many,
                 guint       cycles,
                 Corpus     *corpus,
                 guint64    *calls)
{
  static const char * const extensions[][2] = {
    { "saoudrizwan.claude-dev", "1775300000000" },
    { "rooveterinaryinc.roo-cline", "1775310000000" },
    { "kilocode.kilo-code", "1775320000000" },
  };

  for (guint e = 0; e < G_N_ELEMENTS (extensions); e++)
    {
      g_autofree char *task = g_build_filename ("vscode", "User", "globalStorage", extensions[e][0], "tasks",
                                                extensions[e][1], NULL);
      g_autofree char *task_dir = g_build_filename (fixtures, task, NULL);
      g_autofree char *ui = read_text (task_dir, "ui_messages.json");
      g_autofree char *api = read_text (task_dir, "api_conversation_history.json");
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GPtrArray) plans = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GPtrArray) others = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_free);
      JsonArray *array;

      if (ui == NULL || api == NULL || !json_parser_load_from_data (parser, ui, -1, NULL))
        return FALSE;
      array = json_node_get_array (json_parser_get_root (parser));
      for (guint m = 0; m < json_array_get_length (array); m++)
        {
          char *message = json_to_string (json_array_get_element (array, m), FALSE);

          g_ptr_array_add (all, g_strdup (message));
          if (is_task_plan (message))
            g_ptr_array_add (plans, message);
          else if (strstr (message, "\"say\":\"task\"") == NULL)
            g_ptr_array_add (others, message);
          else
            g_free (message);
        }
      /* Kilo's fixture has no other message: its first, the task's, then. */
      if (others->len == 0)
        g_ptr_array_add (others, g_strdup (g_ptr_array_index (all, 0)));

      for (guint i = 0; i < n + n_many; i++)
        {
          gboolean many = i >= n;
          g_autofree char *id = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                 g_ascii_strtoull (extensions[e][1], NULL, 10) + 1000 * (i + 1));
          g_autofree char *folder = g_build_filename (dir, "User", "globalStorage", extensions[e][0], "tasks", id, NULL);
          g_autofree char *api_path = g_build_filename (folder, "api_conversation_history.json", NULL);
          g_autoptr(GString) text = g_string_new ("[");
          guint filler = 0;
          gsize n_plans = 0;

          g_mkdir_with_parents (folder, 0700);
          g_file_set_contents (api_path, api, -1, NULL);
          if (many)
            {
              g_string_append (text, g_ptr_array_index (all, 0));
              for (guint c = 0; c < cycles; c++)
                for (guint p = 0; p < plans->len; p++)
                  g_string_append_printf (text, ",%s", (char *) g_ptr_array_index (plans, p));
            }
          else
            for (guint m = 0; m < all->len; m++)
              {
                const char *message = g_ptr_array_index (all, m);

                g_string_append_printf (text, "%s%s", m ? "," : "", message);
                if (!is_task_plan (message))
                  continue;
                n_plans++;
                /* The task's other messages again, for a real density. */
                while (text->len < n_plans * BYTES_PER_CALL)
                  g_string_append_printf (text, ",%s", (char *) g_ptr_array_index (others, filler++ % others->len));
              }
          g_string_append (text, "]");
          *calls += count (text->str, "\"say\":\"task_progress\"") + count (text->str, "updateTodoList");
          add_file (corpus, folder, "ui_messages.json", text);
        }
    }
  return TRUE;
}
