package codec;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import jakarta.validation.constraints.Size;
import java.io.IOException;
import java.math.BigDecimal;

/**
 * A pack's Jackson module, found through META-INF/services as kindgi-pack finds modules: a serializer that
 * writes {@link Money} as a string, and a mix-in that renames and constrains {@link Renamed}'s component.
 */
public final class CodecModule extends SimpleModule {
  /** An amount the module writes as {@code "12.50 EUR"}. */
  public static final class Money {
    private final BigDecimal amount;
    private final String currency;

    public Money(BigDecimal amount, String currency) {
      this.amount = amount;
      this.currency = currency;
    }

    public BigDecimal getAmount() {
      return amount;
    }

    public String getCurrency() {
      return currency;
    }
  }

  /** A record whose wire names come from the module's mix-in. */
  public record Renamed(String original, int size) {}

  /** A record holding a value only the module's codec can write. */
  public record Priced(String item, Money price) {}

  interface RenamedMixIn {
    @JsonProperty("renamedByMixIn")
    @Size(max = 3)
    String original();
  }

  public CodecModule() {
    super("codec-test");
    addSerializer(Money.class, new JsonSerializer<>() {
      @Override
      public void serialize(Money value, JsonGenerator gen, SerializerProvider serializers) throws IOException {
        gen.writeString(value.getAmount().toPlainString() + " " + value.getCurrency());
      }
    });
    addDeserializer(Money.class, new JsonDeserializer<>() {
      @Override
      public Money deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        String[] parts = p.getValueAsString().split(" ");
        return new Money(new BigDecimal(parts[0]), parts[1]);
      }
    });
    setMixInAnnotation(Renamed.class, RenamedMixIn.class);
  }
}
