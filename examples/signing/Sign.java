// X-Server-Authorization (docs/protocol.md §2.1) in Java, checked against
// the vectors of Appendix A: java Sign.java vectors.json (Java 11 or later)
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class Sign {
    // --- the snippet ---------------------------------------------------
    /** The signature of the exact bytes sent, under the secret's UTF-8 bytes. */
    static String sign(String secret, byte[] body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        StringBuilder hex = new StringBuilder();
        for (byte b : mac.doFinal(body)) hex.append(String.format("%02x", b));
        return hex.toString();
    }

    /** A received signature checked in constant time: exactly 64 characters 0-9a-f, and equal. */
    static boolean verify(String secret, byte[] body, String signature) throws Exception {
        if (signature == null || !signature.matches("[0-9a-f]{64}")) return false;
        return MessageDigest.isEqual(sign(secret, body).getBytes(StandardCharsets.US_ASCII), signature.getBytes(StandardCharsets.US_ASCII));
    }
    // -------------------------------------------------------------------

    public static void main(String[] args) throws Exception {
        String text = Files.readString(Path.of(args.length > 0 ? args[0] : "vectors.json"), StandardCharsets.UTF_8);
        @SuppressWarnings("unchecked")
        List<Object> vectors = (List<Object>) ((Map<String, Object>) new Json(text).value()).get("vectors");
        int failed = 0;
        for (Object item : vectors) {
            @SuppressWarnings("unchecked")
            Map<String, Object> vector = (Map<String, Object>) item;
            String secret = (String) vector.get("secret");
            String signature = (String) vector.get("signature");
            byte[] body = ((String) vector.get("body")).getBytes(StandardCharsets.UTF_8);
            boolean ok = sign(secret, body).equals(signature) && verify(secret, body, signature) && !verify(secret, body, signature.toUpperCase());
            System.out.println((ok ? "ok " : "FAILED ") + vector.get("name"));
            if (!ok) failed++;
        }
        System.exit(failed == 0 ? 0 : 1);
    }

    /** Just enough JSON for vectors.json (objects, arrays, strings): the JDK has no parser of its own. */
    static final class Json {
        private final String s;
        private int i;

        Json(String s) { this.s = s; }

        Object value() {
            skip();
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> map = new LinkedHashMap<>();
                i++;
                skip();
                if (s.charAt(i) == '}') { i++; return map; }
                while (true) {
                    skip();
                    String key = string();
                    skip();
                    expect(':');
                    map.put(key, value());
                    skip();
                    if (s.charAt(i++) == '}') return map;
                }
            }
            if (c == '[') {
                List<Object> list = new ArrayList<>();
                i++;
                skip();
                if (s.charAt(i) == ']') { i++; return list; }
                while (true) {
                    list.add(value());
                    skip();
                    if (s.charAt(i++) == ']') return list;
                }
            }
            return string();
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') return out.toString();
                if (c != '\\') { out.append(c); continue; }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': out.append('\n'); break;
                    case 't': out.append('\t'); break;
                    case 'r': out.append('\r'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'u': out.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: out.append(e);
                }
            }
        }

        private void expect(char c) {
            if (s.charAt(i++) != c) throw new IllegalStateException("expected " + c + " at " + (i - 1));
        }

        private void skip() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        }
    }
}
