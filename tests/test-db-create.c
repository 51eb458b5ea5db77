/* test-db-create.c: a new database is the very file Plandeck made, tried
 * as an attacker would: a file or a link planted at its name between the
 * check and the making, the made file swapped before SQLite opens it, a log
 * put beside it, a folder the user cannot write, and databases (and links
 * to them) of another user.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <grp.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <glib/gstdio.h>
#include <sqlite3.h>

#include "pd-db.h"
#include "pd-db-private.h"
#include "pd-test-files.h"

#define NOBODY 65534

typedef struct
{
  char *dir;
  char *victim;       /* a file of "another user" the attack aims at */
  char *swapped_out;  /* where the made file was moved to */
} Fixture;

static Fixture *current;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("pd-test-db-create-XXXXXX", &error);
  g_assert_no_error (error);
  f->victim = g_build_filename (f->dir, "victim.txt", NULL);
  f->swapped_out = g_build_filename (f->dir, "made-moved.db", NULL);
  current = f;
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  _pd_db_race_hook = NULL;
  pd_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->victim);
  g_free (f->swapped_out);
  current = NULL;
}

static void
write_file (const char *path,
            const char *text)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
}

static char *
read_file (const char *path)
{
  g_autofree char *contents = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  return g_steal_pointer (&contents);
}

static void
assert_no_companions (const char *path)
{
  static const char * const suffixes[] = { "-journal", "-wal", "-shm" };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *companion = g_strconcat (path, suffixes[i], NULL);

      g_assert_false (g_file_test (companion, G_FILE_TEST_EXISTS));
    }
}

/* The other user, between the check and the making: a file of theirs,
 * writable by all, at the name (needs root to give it away). */
static void
plant_file (const char    *path,
            PdDbRacePoint  point)
{
  if (point != PD_DB_RACE_BEFORE_CREATE)
    return;
  write_file (path, "");
  g_assert_cmpint (g_chmod (path, 0666), ==, 0);
  if (geteuid () == 0)
    g_assert_cmpint (chown (path, NOBODY, NOBODY), ==, 0);
}

/* Another Plandeck of the same user, started at the same moment, made it
 * first: that is no attack, and both open the one database. */
static void
plant_own_file (const char    *path,
                PdDbRacePoint  point)
{
  if (point == PD_DB_RACE_BEFORE_CREATE)
    write_file (path, "");
}

/* ...or a link to a file they want written (empty, so SQLite would make a
 * database of it). */
static void
plant_link (const char    *path,
            PdDbRacePoint  point)
{
  if (point != PD_DB_RACE_BEFORE_CREATE)
    return;
  g_assert_cmpint (symlink (current->victim, path), ==, 0);
}

/* Between the making and SQLite's open: the made file moved away and a
 * link to theirs put in its place. */
static void
swap_for_link (const char    *path,
               PdDbRacePoint  point)
{
  if (point != PD_DB_RACE_BEFORE_SQLITE)
    return;
  g_assert_cmpint (g_rename (path, current->swapped_out), ==, 0);
  g_assert_cmpint (symlink (current->victim, path), ==, 0);
}

/* ...or a plain file of theirs moved in (no link at all). */
static void
swap_for_file (const char    *path,
               PdDbRacePoint  point)
{
  if (point != PD_DB_RACE_BEFORE_SQLITE)
    return;
  g_assert_cmpint (g_rename (path, current->swapped_out), ==, 0);
  g_assert_cmpint (link (current->victim, path), ==, 0);
}

/* Found: a file planted at the name after the check was taken as the new
 * database (O_EXCL's EEXIST was ignored), and a link followed. */
static void
test_planted_between_check_and_create (Fixture       *f,
                                       gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "new.db", NULL);
  g_autofree char *path2 = g_build_filename (f->dir, "new2.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autofree char *contents = NULL;

  if (geteuid () == 0)
    {
      _pd_db_race_hook = plant_file;
      db = pd_db_open (path, PD_DB_CREATE, &error);
      g_assert_null (db);
      g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
      g_assert_nonnull (strstr (error->message, path));
      g_assert_nonnull (strstr (error->message, "appeared"));
      g_clear_error (&error);
      /* Left alone: still empty, no log beside it. */
      contents = read_file (path);
      g_assert_cmpstr (contents, ==, "");
      assert_no_companions (path);
    }
  else
    g_test_message ("a file of another user needs root to make: that part is left out");

  _pd_db_race_hook = plant_own_file;
  {
    g_autofree char *own = g_build_filename (f->dir, "own.db", NULL);
    g_autoptr(PdDb) both = pd_db_open (own, PD_DB_CREATE, &error);

    g_assert_no_error (error);
    g_assert_nonnull (both);
    g_assert_true (pd_db_exec (both, "CREATE TABLE t (x)", &error));
  }

  write_file (f->victim, "");
  _pd_db_race_hook = plant_link;
  db = pd_db_open (path2, PD_DB_CREATE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "appeared"));
  g_clear_error (&error);
  g_clear_pointer (&contents, g_free);
  contents = read_file (f->victim);
  g_assert_cmpstr (contents, ==, "");
  assert_no_companions (f->victim);
}

/* The made file swapped before SQLite opened it: SQLite would open what
 * stands at the name then.  What it opened is checked by its own
 * descriptor, not by the name. */
static void
test_swapped_before_sqlite (Fixture       *f,
                            gconstpointer  data)
{
  void (*swaps[]) (const char *, PdDbRacePoint) = { swap_for_link, swap_for_file };

  for (guint i = 0; i < G_N_ELEMENTS (swaps); i++)
    {
      g_autofree char *name = g_strdup_printf ("new%u.db", i);
      g_autofree char *path = g_build_filename (f->dir, name, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PdDb) db = NULL;
      g_autofree char *contents = NULL;

      write_file (f->victim, "");
      g_assert_cmpint (g_chmod (f->victim, 0666), ==, 0);
      _pd_db_race_hook = swaps[i];
      db = pd_db_open (path, PD_DB_CREATE, &error);
      _pd_db_race_hook = NULL;
      g_assert_null (db);
      g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
      g_assert_nonnull (strstr (error->message, "was replaced"));
      contents = read_file (f->victim);
      g_assert_cmpstr (contents, ==, "");
      assert_no_companions (f->victim);
      assert_no_companions (path);
      g_remove (path);
      g_remove (f->swapped_out);
      g_remove (f->victim);
    }
}

/* A log waiting beside a new database would be replayed into it. */
static void
test_companion_planted (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "new.db", NULL);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;

  write_file (wal, "theirs");
  db = pd_db_open (path, PD_DB_CREATE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, wal));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  /* The check the window offers the file with says the same. */
  g_remove (wal);
  g_assert_true (pd_db_check_creatable (path, NULL));
  write_file (path, "");
  g_assert_false (pd_db_check_creatable (path, NULL));
}

/* As root every folder is writable: the folder checks run in a subprocess
 * that gives up root for nobody. */
static void
drop_root (void)
{
  if (geteuid () != 0)
    return;
  g_assert_cmpint (setgroups (0, NULL), ==, 0);
  g_assert_cmpint (setgid (NOBODY), ==, 0);
  g_assert_cmpint (setuid (NOBODY), ==, 0);
}

static void
test_folder_not_writable_subprocess (void)
{
  const char *dir = g_getenv ("PD_TEST_DB_DIR");
  g_autofree char *locked = g_build_filename (dir, "locked", NULL);
  g_autofree char *path = g_build_filename (locked, "x.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;

  drop_root ();
  g_assert_false (pd_db_check_creatable (path, &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "you cannot write in the folder"));
  g_assert_nonnull (strstr (error->message, locked));
  g_clear_error (&error);

  db = pd_db_open (path, PD_DB_CREATE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "you cannot write in the folder"));
  g_assert_nonnull (strstr (error->message, locked));
}

/* Offered for a folder the user cannot write, accepting said only
 * "cannot be made: Permission denied" (tried as a new user would). */
static void
test_folder_not_writable (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *locked = g_build_filename (f->dir, "locked", NULL);

  g_assert_cmpint (g_mkdir (locked, 0755), ==, 0);
  g_assert_cmpint (g_chmod (f->dir, 0755), ==, 0);
  if (geteuid () != 0)
    g_assert_cmpint (g_chmod (locked, 0555), ==, 0);
  g_setenv ("PD_TEST_DB_DIR", f->dir, TRUE);
  g_test_trap_subprocess ("/pd/db-create/folder-not-writable/subprocess", 20 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_unsetenv ("PD_TEST_DB_DIR");
  g_chmod (locked, 0755);
  g_test_trap_assert_passed ();
}

/* Another user's database: never written, and never opened through a
 * link; a log of another user beside one's own database is not taken.
 * Files of another owner need root to make. */
static void
test_foreign_owner (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *theirs = g_build_filename (f->dir, "theirs.db", NULL);
  g_autofree char *link_path = g_build_filename (f->dir, "link.db", NULL);
  g_autofree char *empty = g_build_filename (f->dir, "empty.db", NULL);
  g_autofree char *mine = g_build_filename (f->dir, "mine.db", NULL);
  g_autofree char *mine_wal = g_strconcat (mine, "-wal", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autofree char *contents = NULL;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to make files of another owner");
      return;
    }

  db = pd_db_open (theirs, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  g_assert_true (pd_db_exec (db, "PRAGMA wal_checkpoint(TRUNCATE)", &error));
  g_clear_object (&db);
  g_assert_cmpint (chown (theirs, NOBODY, NOBODY), ==, 0);
  g_assert_cmpint (symlink (theirs, link_path), ==, 0);

  db = pd_db_open (theirs, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (db);
  g_assert_true (pd_db_is_read_only (db));
  g_assert_false (pd_db_check_writable (db, &error));
  g_assert_nonnull (strstr (error->message, "belongs to another user"));
  g_clear_error (&error);
  g_clear_object (&db);

  db = pd_db_open (link_path, PD_DB_CREATE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "symbolic link to a database of another user"));
  g_clear_error (&error);

  write_file (empty, "");
  g_assert_cmpint (chown (empty, NOBODY, NOBODY), ==, 0);
  g_assert_cmpint (g_chmod (empty, 0666), ==, 0);
  db = pd_db_open (empty, PD_DB_CREATE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "not an empty file of your own"));
  g_clear_error (&error);
  contents = read_file (empty);
  g_assert_cmpstr (contents, ==, "");

  db = pd_db_open (mine, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  g_assert_true (pd_db_exec (db, "PRAGMA wal_checkpoint(TRUNCATE)", &error));
  g_clear_object (&db);
  g_remove (mine_wal);
  write_file (mine_wal, "theirs");
  g_assert_cmpint (chown (mine_wal, NOBODY, NOBODY), ==, 0);
  g_assert_cmpint (g_chmod (mine_wal, 0666), ==, 0);
  db = pd_db_open (mine, PD_DB_CREATE, &error);
  if (db != NULL)
    g_assert_false (pd_db_exec (db, "CREATE TABLE t (x); INSERT INTO t VALUES (1)", NULL));
  g_clear_error (&error);
  g_clear_pointer (&contents, g_free);
  contents = read_file (mine_wal);
  g_assert_cmpstr (contents, ==, "theirs");
}

/* A log, shared memory or journal of another user beside an existing
 * database of one's own: the open failed with "unable to open database
 * file", naming neither the file nor what to do (tried as an attacker
 * would).  The error names the companion and says to move it away; the
 * file is left as it was. */
static void
test_companion_foreign_named (Fixture       *f,
                              gconstpointer  data)
{
  static const char * const suffixes[] = { "-wal", "-shm", "-journal" };
  g_autofree char *mine = g_build_filename (f->dir, "mine.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to make files of another owner");
      return;
    }

  db = pd_db_open (mine, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  g_assert_true (pd_db_exec (db, "PRAGMA wal_checkpoint(TRUNCATE)", &error));
  g_clear_object (&db);

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *companion = g_strconcat (mine, suffixes[i], NULL);
      g_autofree char *contents = NULL;

      g_remove (companion);
      write_file (companion, "theirs");
      g_assert_cmpint (chown (companion, NOBODY, NOBODY), ==, 0);
      g_assert_cmpint (g_chmod (companion, 0666), ==, 0);

      db = pd_db_open (mine, 0, &error);
      g_assert_null (db);
      g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
      g_assert_nonnull (strstr (error->message, companion));
      g_assert_nonnull (strstr (error->message, "belongs to another user"));
      g_assert_nonnull (strstr (error->message, "move it away"));
      g_clear_error (&error);

      contents = read_file (companion);
      g_assert_cmpstr (contents, ==, "theirs");
      g_remove (companion);
    }

  /* With the file gone the database opens again. */
  db = pd_db_open (mine, 0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (db);
}

/* --- one user's openers at once: no attack, one database ------------------ */

typedef struct
{
  const char *path;
  GError     *error;
} Opener;

static gpointer
open_thread (gpointer data)
{
  Opener *opener = data;
  PdDb *db = pd_db_open (opener->path, PD_DB_CREATE, &opener->error);

  g_clear_object (&db);
  return NULL;
}

/* Found: the demo's run and its window's list, each making the demo's
 * database in a thread of its own, met in the middle: the second took the
 * first's empty file, or its log beside it, for a planted one, and the
 * window's list stayed empty (the demo test failed most runs). */
static void
test_two_threads_at_once (Fixture       *f,
                          gconstpointer  data)
{
  for (guint round = 0; round < 40; round++)
    {
      g_autofree char *name = g_strdup_printf ("both%u.db", round);
      g_autofree char *path = g_build_filename (f->dir, name, NULL);
      Opener openers[2] = { { path, NULL }, { path, NULL } };
      GThread *threads[2];
      g_autoptr(PdDb) db = NULL;
      g_autoptr(GError) error = NULL;

      for (guint i = 0; i < 2; i++)
        threads[i] = g_thread_new ("opener", open_thread, &openers[i]);
      for (guint i = 0; i < 2; i++)
        {
          g_thread_join (threads[i]);
          g_assert_no_error (openers[i].error);
        }
      db = pd_db_open (path, PD_DB_NONE, &error);
      g_assert_no_error (error);
      g_assert_cmpint (pd_db_get_user_version (db), ==, PD_DB_SCHEMA_VERSION);
      g_clear_object (&db);
      for (guint i = 0; i < 3; i++)
        {
          static const char * const suffixes[] = { "", "-wal", "-shm" };
          g_autofree char *file = g_strconcat (path, suffixes[i], NULL);

          g_remove (file);
        }
    }
}

/* Another Plandeck of the same user (a process of its own, so SQLite is
 * called directly) made the database after the check saw the file empty:
 * it is opened as the database it now is. */
static void
make_database_meanwhile (const char    *path,
                         PdDbRacePoint  point)
{
  sqlite3 *other = NULL;
  g_autofree char *sql = NULL;

  if (point != PD_DB_RACE_BEFORE_CREATE)
    return;
  g_assert_cmpint (sqlite3_open (path, &other), ==, SQLITE_OK);
  /* What Plandeck's first migration begins with. */
  sql = g_strdup_printf ("PRAGMA journal_mode = WAL; PRAGMA application_id = %d; CREATE TABLE later (x)",
                         PD_DB_APPLICATION_ID);
  g_assert_cmpint (sqlite3_exec (other, sql, NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (other);
}

static void
test_own_made_meanwhile (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "meanwhile.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;

  write_file (path, "");
  _pd_db_race_hook = make_database_meanwhile;
  db = pd_db_open (path, PD_DB_CREATE, &error);
  _pd_db_race_hook = NULL;
  g_assert_no_error (error);
  g_assert_nonnull (db);
  g_assert_cmpint (pd_db_get_user_version (db), ==, PD_DB_SCHEMA_VERSION);
  g_assert_true (pd_db_exec (db, "INSERT INTO later VALUES (1)", &error));
  g_assert_no_error (error);
}

/* Found (tried as an attacker would): the user's own empty file, 0666, with
 * a hard link to it another user made in a shared folder, became the
 * database under both names, readable and writable through the other one;
 * the user's own empty 0644 file kept 0644, its log and shared memory too. */
static void
test_empty_file_linked_or_open (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *own = g_build_filename (f->dir, "own-empty", NULL);
  g_autofree char *linked = g_build_filename (f->dir, "linked.db", NULL);
  g_autofree char *plain = g_build_filename (f->dir, "plain.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  struct stat st;

  write_file (own, "");
  g_assert_cmpint (g_chmod (own, 0666), ==, 0);
  g_assert_cmpint (link (own, linked), ==, 0);
  db = pd_db_open (linked, PD_DB_CREATE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "hard link"));
  g_clear_error (&error);
  g_assert_cmpint (g_stat (own, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 0);
  g_remove (linked);
  g_remove (own);

  write_file (plain, "");
  g_assert_cmpint (g_chmod (plain, 0644), ==, 0);
  db = pd_db_open (plain, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (plain, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
}

/* Found (tried as an attacker would): the user's own empty file with a
 * -wal beside it that has a second name (a hard link) was taken for
 * another Plandeck making the database, twice, and then refused with a
 * message about "another program" that named neither the log nor why.
 * SQLite's own log never has a second name: the refusal names it and
 * says so, and leaves both files as they were. */
static void
test_companion_hard_linked (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "empty.db", NULL);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *other = g_build_filename (f->dir, "other-name", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  struct stat st;

  write_file (path, "");
  write_file (other, "");
  g_assert_cmpint (link (other, wal), ==, 0);

  db = pd_db_open (path, PD_DB_CREATE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, wal));
  g_assert_nonnull (strstr (error->message, "hard link"));
  g_assert_null (strstr (error->message, "another program"));
  g_clear_error (&error);

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 0);
  g_assert_cmpint (g_stat (wal, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 0);
  g_assert_cmpint (st.st_nlink, ==, 2);
  g_remove (wal);
  g_remove (other);

  /* With the link gone, the same empty file becomes the database. */
  db = pd_db_open (path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (db);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/pd/db-create/planted-between-check-and-create", test_planted_between_check_and_create);
  ADD ("/pd/db-create/swapped-before-sqlite", test_swapped_before_sqlite);
  ADD ("/pd/db-create/companion-planted", test_companion_planted);
  ADD ("/pd/db-create/folder-not-writable", test_folder_not_writable);
  g_test_add_func ("/pd/db-create/folder-not-writable/subprocess", test_folder_not_writable_subprocess);
  ADD ("/pd/db-create/foreign-owner", test_foreign_owner);
  ADD ("/pd/db-create/companion-foreign-named", test_companion_foreign_named);
  ADD ("/pd/db-create/two-threads-at-once", test_two_threads_at_once);
  ADD ("/pd/db-create/own-made-meanwhile", test_own_made_meanwhile);
  ADD ("/pd/db-create/empty-file-linked-or-open", test_empty_file_linked_or_open);
  ADD ("/pd/db-create/companion-hard-linked", test_companion_hard_linked);
#undef ADD

  return g_test_run ();
}
