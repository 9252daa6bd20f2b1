package io.littlegrid.server;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Entry point of the littlegrid sample server (the system under test). */
@SpringBootApplication
@ConfigurationPropertiesScan
public class LittlegridServer {
    public static void main(String[] args) {
        SpringApplication.run(LittlegridServer.class, args);
    }
}
