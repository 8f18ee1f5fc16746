package io.github.once.cli.demo;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One row of the matrix: a consumer style and its cells, in scenario order. */
public record RowResult(String code, String label, boolean once, List<CellResult> cells) {

    public int duplicates() {
        return cells.stream().mapToInt(CellResult::duplicates).sum();
    }

    public int lost() {
        return cells.stream().mapToInt(CellResult::lost).sum();
    }

    public boolean failed() {
        return cells.stream().anyMatch(CellResult::failed);
    }

    /** Each trap this row fell into, with the scenarios where it showed. */
    public Map<Trap, List<Scenario>> traps() {
        Map<Trap, List<Scenario>> found = new EnumMap<>(Trap.class);
        for (CellResult c : cells) {
            for (Trap t : c.traps()) {
                found.computeIfAbsent(t, k -> new ArrayList<>()).add(c.scenario());
            }
        }
        return new LinkedHashMap<>(found);
    }
}
