package io.littlegrid.server.transform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Iterator;
import java.util.Map;

/**
 * The transformation of POST /transform: every string value reversed (by code point, so surrogate pairs
 * survive), keys, numbers, booleans and nulls kept, structure and key order kept.
 */
public final class JsonTransform {
    private JsonTransform() {
    }

    /** The transformed tree and how many strings it reversed. */
    public record Result(JsonNode tree, int strings) {
    }

    public static Result apply(JsonNode input) {
        int[] strings = {0};
        JsonNode out = transform(input, strings);
        return new Result(out, strings[0]);
    }

    private static JsonNode transform(JsonNode node, int[] strings) {
        if (node.isTextual()) {
            strings[0]++;
            return TextNode.valueOf(new StringBuilder(node.textValue()).reverse().toString());
        }
        if (node.isObject()) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                out.set(field.getKey(), transform(field.getValue(), strings));
            }
            return out;
        }
        if (node.isArray()) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode(node.size());
            for (JsonNode element : node) {
                out.add(transform(element, strings));
            }
            return out;
        }
        return node;
    }
}
