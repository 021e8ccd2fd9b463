// X-Server-Authorization (docs/protocol.md §2.1) in C#, checked against
// the vectors of Appendix A: mcs Sign.cs && mono Sign.exe vectors.json
// (or in a .NET project: dotnet run -- vectors.json)
using System;
using System.Collections.Generic;
using System.IO;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;

public static class Sign
{
    // --- the snippet ---------------------------------------------------
    /// <summary>The signature of the exact bytes sent, under the secret's UTF-8 bytes.</summary>
    public static string Compute(string secret, byte[] body)
    {
        using (var hmac = new HMACSHA256(Encoding.UTF8.GetBytes(secret)))
        {
            var hex = new StringBuilder();
            foreach (var b in hmac.ComputeHash(body)) hex.Append(b.ToString("x2"));
            return hex.ToString();
        }
    }

    /// <summary>A received signature checked in constant time: exactly 64 characters 0-9a-f, and equal.</summary>
    public static bool Verify(string secret, byte[] body, string signature)
    {
        if (signature == null || !Regex.IsMatch(signature, "^[0-9a-f]{64}$")) return false;
        var expected = Compute(secret, body);
        var difference = 0;
        for (var i = 0; i < 64; i++) difference |= expected[i] ^ signature[i];
        return difference == 0;
    }
    // -------------------------------------------------------------------

    public static int Main(string[] args)
    {
        var text = File.ReadAllText(args.Length > 0 ? args[0] : "vectors.json", Encoding.UTF8);
        var file = (Dictionary<string, object>)new Json(text).Value();
        var failed = 0;
        foreach (var item in (List<object>)file["vectors"])
        {
            var vector = (Dictionary<string, object>)item;
            var secret = (string)vector["secret"];
            var signature = (string)vector["signature"];
            var body = Encoding.UTF8.GetBytes((string)vector["body"]);
            var ok = Compute(secret, body) == signature && Verify(secret, body, signature) && !Verify(secret, body, signature.ToUpperInvariant());
            Console.WriteLine((ok ? "ok " : "FAILED ") + vector["name"]);
            if (!ok) failed++;
        }
        return failed == 0 ? 0 : 1;
    }

    /// <summary>Just enough JSON for vectors.json (objects, arrays, strings), with no library to reference.</summary>
    private sealed class Json
    {
        private readonly string s;
        private int i;

        public Json(string s) { this.s = s; }

        public object Value()
        {
            Skip();
            var c = s[i];
            if (c == '{')
            {
                var map = new Dictionary<string, object>();
                i++;
                Skip();
                if (s[i] == '}') { i++; return map; }
                while (true)
                {
                    Skip();
                    var key = String();
                    Skip();
                    Expect(':');
                    map[key] = Value();
                    Skip();
                    if (s[i++] == '}') return map;
                }
            }
            if (c == '[')
            {
                var list = new List<object>();
                i++;
                Skip();
                if (s[i] == ']') { i++; return list; }
                while (true)
                {
                    list.Add(Value());
                    Skip();
                    if (s[i++] == ']') return list;
                }
            }
            return String();
        }

        private string String()
        {
            Expect('"');
            var output = new StringBuilder();
            while (true)
            {
                var c = s[i++];
                if (c == '"') return output.ToString();
                if (c != '\\') { output.Append(c); continue; }
                var e = s[i++];
                switch (e)
                {
                    case 'n': output.Append('\n'); break;
                    case 't': output.Append('\t'); break;
                    case 'r': output.Append('\r'); break;
                    case 'b': output.Append('\b'); break;
                    case 'f': output.Append('\f'); break;
                    case 'u': output.Append((char)Convert.ToInt32(s.Substring(i, 4), 16)); i += 4; break;
                    default: output.Append(e); break;
                }
            }
        }

        private void Expect(char c)
        {
            if (s[i++] != c) throw new InvalidOperationException("expected " + c + " at " + (i - 1));
        }

        private void Skip()
        {
            while (i < s.Length && char.IsWhiteSpace(s[i])) i++;
        }
    }
}
