package dev.strata.engine;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * Why a file operation failed, in a user's words: never an exception's class name ("cannot read
 * (NoSuchFileException)", issue 28) and never a bare path (what {@link NoSuchFileException} holds
 * as its message).
 */
public final class IoReason {
  private IoReason() {}

  /** {@code "no such file or folder"}, {@code "permission denied"}, the OS's reason, … */
  public static String of(IOException e) {
    return switch (e) {
      case AccessDeniedException x -> "permission denied";
      case NoSuchFileException x -> "no such file or folder";
      case FileAlreadyExistsException x -> "a file is in the way of a folder";
      case FileSystemLoopException x -> "a symlink loop";
      case NotDirectoryException x -> "a part of the path is not a folder";
      case FileSystemException x when x.getReason() != null -> x.getReason();
      default ->
          e.getMessage() == null || e.getMessage().isBlank()
              ? "an input/output error"
              : e.getMessage();
    };
  }
}
