package io.firn.ingest;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.connector.datagen.source.GeneratorFunction;

/** A fixed list of events as a generator function, for a rate-limited bounded test source. */
final class ListedEvents implements GeneratorFunction<Long, IngestEvent> {
  private static final long serialVersionUID = 1L;

  private final ArrayList<String> events;

  ListedEvents(List<String> events) {
    this.events = new ArrayList<>(events);
  }

  @Override
  public IngestEvent map(Long index) {
    return IngestEvent.of(events.get(Math.toIntExact(index)), "list/" + index);
  }
}
