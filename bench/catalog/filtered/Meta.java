import java.sql.*; import java.util.*;
public class Meta {
  static String rows(ResultSet rs, int... cols) throws SQLException {
    List<String> out = new ArrayList<>();
    while (rs.next()) { StringBuilder b = new StringBuilder(); for (int c : cols) b.append(rs.getString(c)).append('|'); out.add(b.toString()); }
    Collections.sort(out); return out.size() + " " + out;
  }
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection(a[0], a[1], a[2])) {
      DatabaseMetaData m = c.getMetaData(); Map<String,String> r = new LinkedHashMap<>();
      String[][] calls = {{"getTables"},{"getColumns"},{"getPrimaryKeys"},{"getImportedKeys"},{"getExportedKeys"},{"getIndexInfo"},{"getSchemas"},{"getTypeInfo"},{"getCatalogs"},{"getTableTypes"},{"getProcedures"},{"getFunctions"},{"getUDTs"},{"getVersionColumns"},{"getBestRowIdentifier"},{"getTablePrivileges"},{"getColumnPrivileges"},{"getCrossReference"},{"getSuperTables"},{"getClientInfoProperties"},{"getPseudoColumns"},{"getSQLKeywords"},{"getUserName"},{"getFunctionColumns"},{"getProcedureColumns"}};
      for (String[] call : calls) {
        String n = call[0]; String v;
        try {
          v = switch (n) {
            case "getTables" -> rows(m.getTables(null, null, "%", new String[]{"TABLE","VIEW","MATERIALIZED VIEW"}), 2, 3, 4, 5);
            case "getColumns" -> rows(m.getColumns(null, "public", "%", "%"), 3, 4, 6, 7, 13);
            case "getPrimaryKeys" -> rows(m.getPrimaryKeys(null, "public", "orders"), 4, 6);
            case "getImportedKeys" -> rows(m.getImportedKeys(null, "public", "orders"), 3, 4, 8, 12);
            case "getExportedKeys" -> rows(m.getExportedKeys(null, "public", "customers"), 3, 7, 8, 12);
            case "getIndexInfo" -> rows(m.getIndexInfo(null, "public", "orders", false, false), 6, 9);
            case "getSchemas" -> rows(m.getSchemas(), 1);
            case "getTypeInfo" -> rows(m.getTypeInfo(), 1);
            case "getCatalogs" -> rows(m.getCatalogs(), 1);
            case "getTableTypes" -> rows(m.getTableTypes(), 1);
            case "getProcedures" -> rows(m.getProcedures(null, "public", "%"), 3);
            case "getFunctions" -> rows(m.getFunctions(null, "public", "%"), 3);
            case "getUDTs" -> rows(m.getUDTs(null, "public", "%", null), 3);
            case "getVersionColumns" -> rows(m.getVersionColumns(null, "public", "orders"), 2);
            case "getBestRowIdentifier" -> rows(m.getBestRowIdentifier(null, "public", "orders", 0, false), 2);
            case "getTablePrivileges" -> rows(m.getTablePrivileges(null, "public", "%"), 3, 6);
            case "getColumnPrivileges" -> rows(m.getColumnPrivileges(null, "public", "orders", "%"), 4, 7);
            case "getCrossReference" -> rows(m.getCrossReference(null, "public", "customers", null, "public", "orders"), 8);
            case "getSuperTables" -> rows(m.getSuperTables(null, "public", "%"), 3);
            case "getClientInfoProperties" -> rows(m.getClientInfoProperties(), 1);
            case "getPseudoColumns" -> rows(m.getPseudoColumns(null, "public", "%", "%"), 3);
            case "getSQLKeywords" -> String.valueOf(m.getSQLKeywords().length());
            case "getUserName" -> m.getUserName();
            case "getFunctionColumns" -> rows(m.getFunctionColumns(null, "public", "%", "%"), 3);
            case "getProcedureColumns" -> rows(m.getProcedureColumns(null, "public", "%", "%"), 3);
            default -> "?";
          };
        } catch (SQLException e) { v = "FAILED " + e.getMessage().split("\n")[0]; }
        r.put(n, v);
      }
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select * from orders limit 1")) {
        ResultSetMetaData md = rs.getMetaData(); StringBuilder b = new StringBuilder();
        for (int i = 1; i <= md.getColumnCount(); i++) b.append(md.getColumnTypeName(i)).append('/').append(md.getTableName(i)).append(' ');
        rs.next(); b.append(rs.getObject(3));
        r.put("ResultSetMetaData", b.toString());
      } catch (SQLException e) { r.put("ResultSetMetaData", "FAILED " + e.getMessage().split("\n")[0]); }
      r.forEach((k, v) -> System.out.println(k + "\t" + (v.length() > 300 ? v.substring(0, 300) : v)));
    }
  }
}
