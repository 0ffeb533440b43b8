package dev.countersign.support;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * JSON for standard output that passes through the GitHub Actions log writer unchanged: ASCII only
 * (other characters as {@code \\uXXXX}) and every {@code [} inside a string as {@code \\u005B}, so
 * no line of it contains {@code ##[} or starts with {@code ::}, whatever file names or messages it
 * quotes. The JSON value is the same; only its spelling differs.
 */
public final class LogSafeJson {

  private LogSafeJson() {}

  /** An indenting mapper with those escapes. */
  public static ObjectMapper mapper() {
    JsonMapper mapper =
        JsonMapper.builder()
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();
    mapper.getFactory().setCharacterEscapes(new BracketEscapes());
    return mapper;
  }

  private static final class BracketEscapes extends CharacterEscapes {
    private final int[] ascii;

    BracketEscapes() {
      ascii = standardAsciiEscapesForJSON();
      ascii['['] = ESCAPE_STANDARD;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      return null; // only standard escapes
    }
  }
}
