package io.firn.worker.commit;

/**
 * A row-count or snapshot-history check failed around a commit. Never silent: it is an alert and a
 * metric. The message names the table, the group and the numbers.
 */
public class IntegrityCheckFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public IntegrityCheckFailedException(String message) {
    super(message);
  }
}
