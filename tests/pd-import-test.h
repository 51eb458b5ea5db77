/* pd-import-test.h: what the importer tests share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "pd-checklist.h"
#include "pd-import-index.h"
#include "pd-import-private.h"
#include "pd-imported-session.h"
#include "pd-transcript-pages.h"
#include "pd-transcript-reader.h"
#include "pd-test-files.h"

/* The project's own transcript fixtures (tests/fixtures, PD_FIXTURES_DIR):
 * always there, so a missing folder fails the test. */
static inline char *
pd_import_test_fixtures (const char *sub)
{
  const char *root = g_getenv ("PD_FIXTURES_DIR");
  char *dir;

  g_assert_nonnull (root);
  dir = g_build_filename (root, sub, NULL);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    g_error ("the project's fixtures folder %s is missing", dir);
  return dir;
}

/* A file of the project's own fixtures: @sub/@file under PD_FIXTURES_DIR. */
static inline char *
pd_import_test_fixture_file (const char *sub,
                             const char *file)
{
  char *dir = pd_import_test_fixtures (sub);
  char *path = g_build_filename (dir, file, NULL);

  g_free (dir);
  return path;
}

/* Appends @text to the file at @path, as an agent writes on. */
static inline void
pd_import_test_append (const char *path,
                       const char *text)
{
  FILE *file = fopen (path, "a");

  g_assert_nonnull (file);
  fputs (text, file);
  fclose (file);
}

/* The shared third-party recordings (../shared/fixtures beside the source
 * tree, PD_SHARED_FIXTURES_DIR): an extra check.  NULL after g_test_skip()
 * with the reason when they are not there. */
static inline char *
pd_import_test_shared_fixtures (const char *sub)
{
  const char *root = g_getenv ("PD_SHARED_FIXTURES_DIR");
  char *dir;

  if (root == NULL || !g_file_test (root, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("../shared/fixtures (the third-party recordings) is not beside the source tree: this extra "
                   "check is skipped; the same reader ran on the project's own fixtures in tests/fixtures");
      return NULL;
    }
  dir = g_build_filename (root, sub, NULL);
  if (!g_file_test (dir, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("a folder of ../shared/fixtures is missing: this extra check is skipped");
      g_free (dir);
      return NULL;
    }
  return dir;
}

/* Writes @lines (NULL-terminated) one per line to @dir/@name. */
static inline char *
pd_import_test_write (const char         *dir,
                      const char         *name,
                      const char * const *lines)
{
  GString *text = g_string_new (NULL);
  char *path = g_build_filename (dir, name, NULL);
  char *parent = g_path_get_dirname (path);
  GError *error = NULL;

  for (guint i = 0; lines[i]; i++)
    {
      g_string_append (text, lines[i]);
      g_string_append_c (text, '\n');
    }
  g_mkdir_with_parents (parent, 0700);
  g_file_set_contents (path, text->str, (gssize) text->len, &error);
  g_assert_no_error (error);
  g_string_free (text, TRUE);
  g_free (parent);
  return path;
}

static inline char *
pd_import_test_tmpdir (void)
{
  GError *error = NULL;
  char *dir = g_dir_make_tmp ("pd-import-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

/* A database of the test's own, in a new temporary folder (*@db_dir, for
 * pd_test_remove_tree()), and its store. */
static inline PdSessionStore *
pd_import_test_new_store (char **db_dir)
{
  GError *error = NULL;
  char *db_path;
  PdSessionStore *store;
  PdDb *db;

  *db_dir = pd_import_test_tmpdir ();
  db_path = g_build_filename (*db_dir, "sessions.db", NULL);
  db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  g_object_unref (db);
  g_free (db_path);
  return store;
}

/* One import of @dir into @store by a new index, as a new process makes
 * one (nothing of the last is kept but the database): its counts in
 * *@stats, and the row of the one session there. */
static inline PdSessionInfo *
pd_import_test_import_fresh (PdSessionStore     *store,
                             const char         *dir,
                             PdImportIndexStats *stats)
{
  PdImportIndex *index = pd_import_index_new ();
  GPtrArray *list;
  GError *error = NULL;
  const char *roots[] = { dir, NULL };
  PdSessionInfo *info;

  memset (stats, 0, sizeof *stats);
  g_assert_true (pd_import_index_run_paths (index, store, roots, stats, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);
  info = pd_session_info_copy (g_ptr_array_index (list, 0));
  g_ptr_array_unref (list);
  g_object_unref (index);
  return info;
}

/* "text:status|text:status" of the agent's section, for compact asserts. */
static inline char *
pd_import_test_describe (PdImportedSession *session)
{
  PdChecklist *list = pd_imported_session_get_checklist (session);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < pd_checklist_get_n_agent_items (list); i++)
    {
      const PdChecklistItem *item = pd_checklist_get_agent_item (list, i);
      if (i > 0)
        g_string_append_c (out, '|');
      g_string_append_printf (out, "%s:%s", item->text, pd_checklist_status_to_string (item->status));
    }
  return g_string_free (out, FALSE);
}

/* The session's checklist is @expected, as pd_import_test_describe() says it. */
static inline void
pd_import_test_assert_list (PdImportedSession *session,
                            const char        *expected)
{
  char *got = pd_import_test_describe (session);

  g_assert_cmpstr (got, ==, expected);
  g_free (got);
}

/* --- tail reads: a transcript written line by line, read whole and from
 * its end with the threshold and bound lowered ----------------------- */

typedef PdImportedSession *(*PdImportTestReadFunc) (const char  *path,
                                                    GError     **error);

typedef struct
{
  char    *dir;
  char    *path;
  GString *text;
  guint    clock;   /* seconds since the first line */
} PdTailFixture;

static inline void
pd_tail_fixture_init (PdTailFixture *f,
                      const char    *name)
{
  f->dir = pd_import_test_tmpdir ();
  f->path = g_build_filename (f->dir, name, NULL);
  f->text = g_string_new (NULL);
  f->clock = 0;
}

static inline void
pd_tail_fixture_clear (PdTailFixture *f)
{
  _pd_import_set_tail_limits (0, 0);
  pd_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->path);
  g_string_free (f->text, TRUE);
}

static inline void
pd_tail_fixture_save (PdTailFixture *f)
{
  GError *error = NULL;

  g_file_set_contents (f->path, f->text->str, (gssize) f->text->len, &error);
  g_assert_no_error (error);
}

/* Read whole: no tail read, every byte read. */
static inline PdImportedSession *
pd_tail_fixture_read_full (PdTailFixture        *f,
                           PdImportTestReadFunc  read)
{
  GError *error = NULL;
  PdImportedSession *session;

  _pd_import_set_tail_limits (0, 0);
  session = read (f->path, &error);
  g_assert_no_error (error);
  g_assert_false (pd_imported_session_get_stats (session)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->bytes_read, ==, f->text->len);
  return session;
}

/* Read as a file over the threshold, scanned back at most @bound bytes. */
static inline PdImportedSession *
pd_tail_fixture_read_tail (PdTailFixture        *f,
                           PdImportTestReadFunc  read,
                           goffset               bound)
{
  GError *error = NULL;
  PdImportedSession *session;

  _pd_import_set_tail_limits (64 * 1024, bound);
  session = read (f->path, &error);
  g_assert_no_error (error);
  _pd_import_set_tail_limits (0, 0);
  return session;
}

/* @line as some tools rewrite JSON, and as Python's json.dumps writes it
 * by default: a blank after each colon and comma between members. */
static inline char *
pd_import_test_spaced_line (const char *line)
{
  GString *out = g_string_new (NULL);
  gboolean in_string = FALSE, escaped = FALSE;

  for (const char *p = line; *p != '\0'; p++)
    {
      g_string_append_c (out, *p);
      if (in_string)
        {
          if (escaped)
            escaped = FALSE;
          else if (*p == '\\')
            escaped = TRUE;
          else if (*p == '"')
            in_string = FALSE;
        }
      else if (*p == '"')
        in_string = TRUE;
      else if (*p == ':' || *p == ',')
        g_string_append_c (out, ' ');
    }
  return g_string_free (out, FALSE);
}

/* A copy of the folder @from in @to, each JSON lines file's lines spaced
 * (pd_import_test_spaced_line()), every other file as it is. */
static inline void
pd_import_test_copy_spaced (const char *from,
                            const char *to)
{
  GDir *dir = g_dir_open (from, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_mkdir_with_parents (to, 0700), ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      char *source = g_build_filename (from, name, NULL);
      char *target = g_build_filename (to, name, NULL);
      char *text = NULL;
      gsize length;

      if (g_file_test (source, G_FILE_TEST_IS_DIR))
        pd_import_test_copy_spaced (source, target);
      else
        {
          g_assert_true (g_file_get_contents (source, &text, &length, NULL));
          if (g_str_has_suffix (name, ".jsonl"))
            {
              char **lines = g_strsplit (text, "\n", -1);

              for (guint i = 0; lines[i] != NULL; i++)
                {
                  char *spaced = pd_import_test_spaced_line (lines[i]);

                  g_free (lines[i]);
                  lines[i] = spaced;
                }
              g_free (text);
              text = g_strjoinv ("\n", lines);
              length = strlen (text);
              g_strfreev (lines);
            }
          g_assert_true (g_file_set_contents (target, text, (gssize) length, NULL));
        }
      g_free (text);
      g_free (source);
      g_free (target);
    }
  g_dir_close (dir);
}

/* @session as `import --json` prints it, but for its path. */
static inline char *
pd_import_test_session_json_pathless (PdImportedSession *session)
{
  JsonNode *root = pd_imported_session_to_json (session, TRUE);
  char *text;

  json_object_remove_member (json_node_get_object (root), "path");
  text = json_to_string (root, TRUE);
  json_node_unref (root);
  return text;
}

/* What a reader of @format makes of @path: the session (lines picked or
 * built whole) without its path, then the pages' messages. */
static inline char *
pd_import_test_read_for_compare (const char *format,
                                 const char *path,
                                 gboolean    pick)
{
  GError *error = NULL;
  PdTranscriptReader *reader = pd_transcript_reader_new_for_format (format, path, NULL, &error);
  PdTranscriptReader *paged = pd_transcript_reader_new_for_format (format, path, NULL, &error);
  PdTranscriptPages *pages;
  JsonNode *messages;
  char *session, *listed, *text;

  g_assert_no_error (error);
  _pd_import_set_pick_lines (pick);
  g_assert_true (pd_transcript_reader_update (reader, NULL, &error));
  _pd_import_set_pick_lines (TRUE);
  g_assert_no_error (error);
  session = pd_import_test_session_json_pathless (pd_transcript_reader_get_session (reader));
  pages = pd_transcript_reader_read_pages (paged, NULL, &error);
  g_assert_no_error (error);
  messages = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (messages, pd_transcript_pages_dup_messages (pages));
  listed = json_to_string (messages, TRUE);
  text = g_strconcat (session, "\n", listed, NULL);
  json_node_unref (messages);
  g_free (session);
  g_free (listed);
  g_object_unref (pages);
  g_object_unref (paged);
  g_object_unref (reader);
  return text;
}

/* The agent's fixtures (@agent under PD_FIXTURES_DIR) rewritten as spaced
 * JSON ({"type": "user", …}, as some tools rewrite transcripts) read by a
 * reader of @format: each of @files (relative to @agent) the same session,
 * times and messages as written compact. */
static inline void
pd_import_test_assert_spaced_same (const char         *format,
                                   const char         *agent,
                                   const char * const *files)
{
  char *compact_dir = pd_import_test_fixtures (agent);
  char *tmp = pd_import_test_tmpdir ();
  char *spaced_dir = g_build_filename (tmp, agent, NULL);

  pd_import_test_copy_spaced (compact_dir, spaced_dir);
  for (guint i = 0; files[i] != NULL; i++)
    for (guint pick = 0; pick < 2; pick++)
      {
        char *compact = g_build_filename (compact_dir, files[i], NULL);
        char *spaced = g_build_filename (spaced_dir, files[i], NULL);
        char *want = pd_import_test_read_for_compare (format, compact, pick);
        char *got = pd_import_test_read_for_compare (format, spaced, pick);

        g_test_message ("%s (%s)", files[i], pick ? "picked" : "whole");
        g_assert_cmpstr (got, ==, want);
        g_free (want);
        g_free (got);
        g_free (compact);
        g_free (spaced);
      }
  pd_test_remove_tree (tmp);
  g_free (spaced_dir);
  g_free (tmp);
  g_free (compact_dir);
}
