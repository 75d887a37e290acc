/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.core.protocol;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;

/**
 * Carries Iceberg data and delete files as JSON through Iceberg's own {@link ScanTaskParser}: each
 * file travels as a file scan task holding only that file, with its own partition spec (a delete
 * file may belong to another spec than the data files it applies to). Only the String-based parser
 * entry points are used, so this works next to engine runtime jars that relocate Jackson.
 *
 * <p>Iceberg's JSON omits sequence numbers, which decide whether an equality delete applies to a
 * data file; they travel beside the JSON in {@link WireFile} and are set back on decode.
 *
 * <p>Thread-safe (stateless).
 */
public final class FileCodec {
  private static final Method SET_DATA_SEQUENCE = baseFileMethod("setDataSequenceNumber");
  private static final Method SET_FILE_SEQUENCE = baseFileMethod("setFileSequenceNumber");

  private FileCodec() {}

  /**
   * Encodes one file.
   *
   * @param file a data or delete file
   * @param schema the table schema the spec binds to
   * @param spec the file's own partition spec
   * @param deletes for a data file of a task: indexes of its delete files; else empty
   */
  public static WireFile encode(
      ContentFile<?> file, Schema schema, PartitionSpec spec, List<Integer> deletes) {
    if (file.specId() != spec.specId()) {
      throw new IllegalArgumentException(
          "file " + file.location() + " has spec " + file.specId() + ", not " + spec.specId());
    }
    String schemaJson = SchemaParser.toJson(schema);
    String specJson = PartitionSpecParser.toJson(spec);
    ResidualEvaluator residuals = ResidualEvaluator.unpartitioned(Expressions.alwaysTrue());
    FileScanTask task;
    if (file instanceof DataFile data) {
      task = new BaseFileScanTask(data, new DeleteFile[0], schemaJson, specJson, residuals);
    } else {
      task = new DeleteOnlyTask((DeleteFile) file, schemaJson, specJson, residuals);
    }
    return new WireFile(
        ScanTaskParser.toJson(task),
        sequenceOrUnknown(file.dataSequenceNumber()),
        sequenceOrUnknown(file.fileSequenceNumber()),
        deletes);
  }

  /** Encodes a file that is not part of a task (no delete indexes). */
  public static WireFile encode(ContentFile<?> file, Schema schema, PartitionSpec spec) {
    return encode(file, schema, spec, List.of());
  }

  /**
   * Decodes a data file.
   *
   * @throws ProtocolException when the JSON is not a data file in Iceberg's format
   */
  public static DataFile decodeDataFile(WireFile wire) {
    FileScanTask task = parse(wire);
    if (task.file() == null) {
      throw new ProtocolException("expected a data file, got a delete file: " + abbreviate(wire));
    }
    return withSequenceNumbers(task.file(), wire);
  }

  /**
   * Decodes a delete file.
   *
   * @throws ProtocolException when the JSON is not a delete file in Iceberg's format
   */
  public static DeleteFile decodeDeleteFile(WireFile wire) {
    FileScanTask task = parse(wire);
    if (task.file() != null || task.deletes() == null || task.deletes().size() != 1) {
      throw new ProtocolException("expected one delete file: " + abbreviate(wire));
    }
    return withSequenceNumbers(task.deletes().get(0), wire);
  }

  private static FileScanTask parse(WireFile wire) {
    if (wire.json() == null || wire.json().isBlank()) {
      throw new ProtocolException("file JSON is missing");
    }
    try {
      return ScanTaskParser.fromJson(wire.json(), true);
    } catch (RuntimeException e) {
      throw new ProtocolException(
          "file JSON is not an Iceberg file scan task ("
              + e.getMessage()
              + "): "
              + abbreviate(wire),
          e);
    }
  }

  private static <F extends ContentFile<F>> F withSequenceNumbers(F file, WireFile wire) {
    try {
      if (wire.dataSequenceNumber() >= 0) {
        SET_DATA_SEQUENCE.invoke(file, wire.dataSequenceNumber());
      }
      if (wire.fileSequenceNumber() >= 0) {
        SET_FILE_SEQUENCE.invoke(file, wire.fileSequenceNumber());
      }
    } catch (IllegalAccessException | InvocationTargetException e) {
      throw new IllegalStateException("cannot set the sequence numbers of " + file.location(), e);
    }
    return file;
  }

  private static long sequenceOrUnknown(Long sequence) {
    return sequence == null ? -1 : sequence;
  }

  private static String abbreviate(WireFile wire) {
    String json = String.valueOf(wire.json());
    return json.length() <= 200 ? json : json.substring(0, 200) + "...";
  }

  /**
   * Iceberg keeps the setters of decoded files on its package-private {@code BaseFile}; the files
   * {@code ContentFileParser} returns extend it. A test pins this, so an Iceberg upgrade that
   * changes it fails the build rather than losing sequence numbers.
   */
  private static Method baseFileMethod(String name) {
    try {
      Method method = Class.forName("org.apache.iceberg.BaseFile").getMethod(name, Long.class);
      method.setAccessible(true);
      return method;
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(
          "this Iceberg version has no BaseFile." + name + "(Long); FileCodec needs updating");
    }
  }

  /** A scan task that carries one delete file and no data file. */
  private static final class DeleteOnlyTask extends BaseFileScanTask {
    DeleteOnlyTask(
        DeleteFile delete, String schemaJson, String specJson, ResidualEvaluator residuals) {
      super(null, new DeleteFile[] {delete}, schemaJson, specJson, residuals);
    }

    @Override
    public long length() {
      return 0;
    }

    @Override
    public Expression residual() {
      return Expressions.alwaysTrue();
    }
  }
}
