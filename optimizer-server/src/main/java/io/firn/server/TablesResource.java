package io.firn.server;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/** {@code /api/v1/tables}: what the watcher knows about each table. */
@Path("/api/v1/tables")
@Produces(MediaType.APPLICATION_JSON)
public class TablesResource {
  /** One table in the API; {@code evaluatedAt} is ISO-8601 UTC. */
  public record TableView(
      String catalog,
      String namespace,
      String table,
      Long snapshotId,
      boolean needsPlan,
      String reason,
      String evaluatedAt) {
    static TableView of(TableRuntime runtime) {
      return new TableView(
          runtime.catalog(),
          runtime.namespace(),
          runtime.table(),
          runtime.snapshotId(),
          runtime.needsPlan(),
          runtime.reason(),
          runtime.evaluatedAt().toString());
    }
  }

  private final TableWatcher watcher;

  public TablesResource(TableWatcher watcher) {
    this.watcher = watcher;
  }

  @GET
  public List<TableView> list() {
    return watcher.tables().stream().map(TableView::of).toList();
  }
}
