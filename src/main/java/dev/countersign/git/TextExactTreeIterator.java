package dev.countersign.git;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.Arrays;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.CoreConfig;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.treewalk.AbstractTreeIterator;
import org.eclipse.jgit.treewalk.FileTreeIterator;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.io.EolStreamTypeUtil;

/**
 * The work tree as jgit's checkout and status see it, except that a file holding its index entry's
 * text is never modified. jgit (and git, for an entry it cannot trust by its stat data) compares
 * the file's content, its line ends converted as {@code git add} would, with the blob as it is: a
 * file committed with CRLF line ends under a {@code text} attribute in .gitattributes, which any
 * pull request can add, counted as edited right after checkout though nobody touched it, and every
 * run that signs it stopped as if a step had left work in it. Here the blob's line ends are
 * converted too.
 */
final class TextExactTreeIterator extends FileTreeIterator {

  TextExactTreeIterator(Repository repository) {
    super(repository);
  }

  private TextExactTreeIterator(TextExactTreeIterator parent, File directory, FS fs) {
    super(parent, directory, fs, parent.fileModeStrategy);
  }

  /** Below a directory, the same; jgit still decides whether to enter it (ignored ones not). */
  @Override
  protected AbstractTreeIterator enterSubtree() {
    return new TextExactTreeIterator(this, getEntryFile(), fs);
  }

  @Override
  public boolean isModified(DirCacheEntry entry, boolean forceContentCheck, ObjectReader reader)
      throws IOException {
    return super.isModified(entry, forceContentCheck, reader) && !holdsItsText(entry, reader);
  }

  /**
   * The file is a regular one of the entry's mode and, with the line ends of both converted as
   * {@code git add} would (the attributes' and core.autocrlf's conversion, no filter command),
   * holds the entry's blob.
   */
  private boolean holdsItsText(DirCacheEntry entry, ObjectReader reader) throws IOException {
    FileMode mode = entry.getFileMode();
    if (reader == null
        || entry.getStage() != DirCacheEntry.STAGE_0
        || (mode != FileMode.REGULAR_FILE && mode != FileMode.EXECUTABLE_FILE)
        || getEntryRawMode() != mode.getBits()) {
      return false;
    }
    CoreConfig.EolStreamType lineEnds = getEolStreamType();
    ObjectLoader blob = reader.open(entry.getObjectId(), Constants.OBJ_BLOB);
    try (InputStream committed = EolStreamTypeUtil.wrapInputStream(blob.openStream(), lineEnds);
        InputStream present =
            EolStreamTypeUtil.wrapInputStream(
                Files.newInputStream(getEntryFile().toPath(), LinkOption.NOFOLLOW_LINKS),
                lineEnds)) {
      byte[] expected = new byte[8192];
      byte[] actual = new byte[8192];
      int n;
      while ((n = committed.readNBytes(expected, 0, expected.length)) > 0) {
        if (present.readNBytes(actual, 0, n) != n || !Arrays.equals(expected, 0, n, actual, 0, n)) {
          return false;
        }
      }
      return present.read() < 0;
    }
  }
}
