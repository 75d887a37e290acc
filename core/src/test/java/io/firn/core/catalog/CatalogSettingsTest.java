package io.firn.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The custom catalog type: a catalog-impl class, no Iceberg type beside it, clear refusals. */
class CatalogSettingsTest {
  @Test
  void aCustomCatalogPassesItsClassAndNoType() {
    CatalogSettings settings =
        new CatalogSettings(
            "lake", "custom", "jdbc:sqlite:x.db", "/wh", Map.of("catalog-impl", "org.example.C"));
    assertThat(settings.icebergProperties())
        .doesNotContainKey("type")
        .containsEntry("catalog-impl", "org.example.C")
        .containsEntry("uri", "jdbc:sqlite:x.db");
  }

  @Test
  void aCustomCatalogWithoutItsClassIsRefusedNamingTheProperty() {
    assertThatThrownBy(() -> new CatalogSettings("lake", "CUSTOM", null, null, Map.of()))
        .isInstanceOf(CatalogConnectionException.class)
        .hasMessageStartingWith("catalog 'lake' of type custom needs the property catalog-impl");
  }

  @Test
  void anUnknownTypeNamesTheTypesThereAre() {
    assertThatThrownBy(() -> new CatalogSettings("lake", "hive", null, "/wh", Map.of()))
        .hasMessage("catalog 'lake': type 'hive' is not one of jdbc, hadoop, rest, custom");
  }
}
