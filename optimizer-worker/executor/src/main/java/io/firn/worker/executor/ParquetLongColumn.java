/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.worker.executor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.io.FileIO;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.jspecify.annotations.Nullable;

/**
 * Reads one integral top-level column of a Parquet file straight from its column chunks, value by
 * value in file order, without building a record per row: what minor optimizing's conversion and
 * the loading of equality deletes on an integer key need, at a fraction of the generic reader's
 * cost (BENCHMARKS.md, "Minor optimizing's conversion").
 *
 * <p>The column is found by its Iceberg field id in the file's Parquet schema. Anything this path
 * does not handle exactly (another format, an encrypted file, no field ids, a nested or repeated
 * column, a physical type other than INT32/INT64, a logical annotation other than a plain integer)
 * makes {@link #read} answer -1, and the caller reads the file with Iceberg's generic reader
 * instead; so the fast path can only be skipped, never read a value differently.
 *
 * <p>A file it reads is checked on the way: page checksums where the writer wrote them, the values
 * of every row group against its row count, and the file's rows against the count in the table's
 * metadata. A damaged or mismatching file fails the task with the file named.
 */
final class ParquetLongColumn {
  /** Receives the column's values in file order; position counts rows from 0. */
  interface Visitor {
    void value(long position, long value);

    void nullValue(long position);
  }

  private final ContentFile<?> file;
  private final ParquetFileReader reader;
  private final ColumnDescriptor column;
  private final MessageType projection;
  private final String createdBy;

  private ParquetLongColumn(
      ContentFile<?> file,
      ParquetFileReader reader,
      ColumnDescriptor column,
      MessageType projection,
      String createdBy) {
    this.file = file;
    this.reader = reader;
    this.column = column;
    this.projection = projection;
    this.createdBy = createdBy;
  }

  /**
   * Reads every value of field {@code fieldId} of {@code file} in file order.
   *
   * @return the number of rows read, or -1 when this path cannot read the column exactly (nothing
   *     was passed to the visitor then)
   */
  static long read(FileIO io, ContentFile<?> file, int fieldId, Visitor visitor) {
    if (file.format() != FileFormat.PARQUET || file.keyMetadata() != null) {
      // Another format, or an encrypted file: Iceberg's reader decides what it can read.
      return -1;
    }
    org.apache.iceberg.io.InputFile input =
        io.newInputFile(file.location(), file.fileSizeInBytes());
    long rows;
    try {
      // A required key is read without Parquet's file reader (ADR 0046); anything that path
      // does not read exactly, by Parquet's.
      rows = ParquetKeyPages.read(input, file, fieldId, visitor);
      if (rows == ParquetKeyPages.NOT_HANDLED) {
        rows = readWithParquet(input, file, fieldId, visitor);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read Parquet file " + file.location(), e);
    } catch (TaskFailedException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new TaskFailedException("cannot read Parquet file " + file.location() + ": " + e, e);
    }
    if (rows >= 0) {
      TaskFailedException.checkRowCount(file, rows);
    }
    return rows;
  }

  private static long readWithParquet(
      org.apache.iceberg.io.InputFile input, ContentFile<?> file, int fieldId, Visitor visitor)
      throws IOException {
    ParquetFileReader reader;
    try {
      // Parquet's plain configuration, as Iceberg's own reader: the default one is a Hadoop
      // Configuration that parses Hadoop's XML resources on every open.
      // Pages carrying a checksum (Parquet's writers add one by default) are checked: a damaged
      // key page would otherwise decode to other keys, and so to other deletes.
      reader =
          ParquetFileReader.open(
              new Input(input),
              ParquetReadOptions.builder(new PlainParquetConfiguration())
                  .usePageChecksumVerification(true)
                  .build());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open Parquet file " + file.location(), e);
    } catch (RuntimeException e) {
      throw new TaskFailedException("cannot open Parquet file " + file.location() + ": " + e, e);
    }
    try (reader) {
      ParquetLongColumn column = find(file, reader, fieldId);
      return column == null ? -1 : column.readAll(visitor);
    }
  }

  private static @Nullable ParquetLongColumn find(
      ContentFile<?> file, ParquetFileReader reader, int fieldId) {
    MessageType schema = reader.getFileMetaData().getSchema();
    Type match = null;
    for (Type field : schema.getFields()) {
      if (field.getId() != null && field.getId().intValue() == fieldId) {
        match = field;
      }
    }
    if (match == null
        || !match.isPrimitive()
        || match.isRepetition(Type.Repetition.REPEATED)
        || !plainInteger(match.asPrimitiveType())) {
      return null;
    }
    MessageType projection = new MessageType(schema.getName(), List.of(match));
    List<ColumnDescriptor> columns = projection.getColumns();
    if (columns.size() != 1 || columns.get(0).getMaxRepetitionLevel() != 0) {
      return null;
    }
    reader.setRequestedSchema(projection);
    String createdBy = reader.getFileMetaData().getCreatedBy();
    return new ParquetLongColumn(file, reader, columns.get(0), projection, createdBy);
  }

  private static boolean plainInteger(PrimitiveType type) {
    PrimitiveType.PrimitiveTypeName physical = type.getPrimitiveTypeName();
    if (physical != PrimitiveType.PrimitiveTypeName.INT32
        && physical != PrimitiveType.PrimitiveTypeName.INT64) {
      return false;
    }
    LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
    return logical == null
        || (logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation integer
            && integer.isSigned());
  }

  private long readAll(Visitor visitor) throws IOException {
    boolean int32 =
        column.getPrimitiveType().getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT32;
    long position = 0;
    PageReadStore rowGroup;
    while ((rowGroup = reader.readNextRowGroup()) != null) {
      long rows = rowGroup.getRowCount();
      long read =
          column.getMaxDefinitionLevel() == 0
              ? readRequired(rowGroup, position, visitor)
              : readOptional(rowGroup, int32, position, visitor);
      checkRowGroup(file, read, rows, "column " + column);
      position += rows;
    }
    return position;
  }

  /** Fails naming the file when a row group's column holds another number of values than rows. */
  static void checkRowGroup(ContentFile<?> file, long values, long rows, String column) {
    if (values != rows) {
      throw new TaskFailedException(
          "Parquet file "
              + file.location()
              + " has "
              + values
              + " values in a row group of "
              + rows
              + " rows in "
              + column);
    }
  }

  /**
   * A required column (every key column Iceberg writes for identifier fields): no levels, so its
   * pages hold values only, decoded here page by page.
   */
  private long readRequired(PageReadStore rowGroup, long first, Visitor visitor)
      throws IOException {
    PageReader pages = rowGroup.getPageReader(column);
    DictionaryPage dictionaryPage = pages.readDictionaryPage();
    Dictionary dictionary =
        dictionaryPage == null
            ? null
            : dictionaryPage.getEncoding().initDictionary(column, dictionaryPage);
    long position = first;
    DataPage page;
    while ((page = pages.readPage()) != null) {
      if (page instanceof DataPageV1 v1) {
        position =
            decode(
                file,
                column,
                page.getValueCount(),
                v1.getValueEncoding(),
                v1.getBytes().toInputStream(),
                dictionary,
                position,
                visitor);
      } else if (page instanceof DataPageV2 v2) {
        position =
            decode(
                file,
                column,
                page.getValueCount(),
                v2.getDataEncoding(),
                v2.getData().toInputStream(),
                dictionary,
                position,
                visitor);
      } else {
        throw new TaskFailedException(
            "Parquet file " + file.location() + " has a data page of unknown kind " + page);
      }
    }
    return position - first;
  }

  /**
   * Passes the values of one page of a required column to the visitor; plain-encoded ones (the
   * usual encoding of unique keys once a dictionary overflows) straight from the page's bytes.
   *
   * @return the position after the page's last value
   */
  static long decode(
      ContentFile<?> file,
      ColumnDescriptor column,
      int count,
      Encoding encoding,
      ByteBufferInputStream in,
      @Nullable Dictionary dictionary,
      long first,
      Visitor visitor)
      throws IOException {
    boolean int32 =
        column.getPrimitiveType().getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT32;
    long position = first;
    if (encoding == Encoding.PLAIN) {
      ByteBuffer values = in.slice(count * (int32 ? 4 : 8)).order(ByteOrder.LITTLE_ENDIAN);
      int at = values.position();
      for (int i = 0; i < count; i++) {
        if (int32) {
          visitor.value(position++, values.getInt(at + 4 * i));
        } else {
          visitor.value(position++, values.getLong(at + 8 * i));
        }
      }
      return position;
    }
    ValuesReader values;
    if (encoding.usesDictionary()) {
      if (dictionary == null) {
        throw new TaskFailedException(
            "Parquet file "
                + file.location()
                + " has a dictionary-encoded page but no dictionary in column "
                + column);
      }
      values = encoding.getDictionaryBasedValuesReader(column, ValuesType.VALUES, dictionary);
    } else {
      values = encoding.getValuesReader(column, ValuesType.VALUES);
    }
    values.initFromPage(count, in);
    for (int i = 0; i < count; i++) {
      visitor.value(position++, int32 ? values.readInteger() : values.readLong());
    }
    return position;
  }

  /** An optional column: Parquet's column reader resolves the definition levels. */
  private long readOptional(PageReadStore rowGroup, boolean int32, long first, Visitor visitor) {
    ColumnReader values =
        new ColumnReadStoreImpl(rowGroup, IGNORING, projection, createdBy).getColumnReader(column);
    long count = values.getTotalValueCount();
    int maxDefinition = column.getMaxDefinitionLevel();
    for (long i = 0; i < count; i++) {
      if (values.getCurrentDefinitionLevel() == maxDefinition) {
        visitor.value(first + i, int32 ? values.getInteger() : values.getLong());
      } else {
        visitor.nullValue(first + i);
      }
      values.consume();
    }
    return count;
  }

  /** The column reader needs a converter; values are taken from it directly, never converted. */
  private static final GroupConverter IGNORING =
      new GroupConverter() {
        private final PrimitiveConverter primitive = new PrimitiveConverter() {};

        @Override
        public Converter getConverter(int fieldIndex) {
          return primitive;
        }

        @Override
        public void start() {}

        @Override
        public void end() {}
      };

  /** Iceberg's file as Parquet's: the same FileIO, so the same credentials and range reads. */
  private static final class Input implements InputFile {
    private final org.apache.iceberg.io.InputFile file;

    Input(org.apache.iceberg.io.InputFile file) {
      this.file = file;
    }

    @Override
    public long getLength() {
      return file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      org.apache.iceberg.io.SeekableInputStream stream = file.newStream();
      return new DelegatingSeekableInputStream(stream) {
        @Override
        public long getPos() throws IOException {
          return stream.getPos();
        }

        @Override
        public void seek(long newPos) throws IOException {
          stream.seek(newPos);
        }
      };
    }
  }
}
